#!/usr/bin/env python3
"""Documentation tests.

  doc_test.py examples LOGTIDE_BINARY ROOT   every '$ ' example in README.md and man/logtide.1
                                             runs (logtide on PATH) and prints exactly the lines
                                             shown under it; each document's examples run in
                                             order in a scratch folder of their own, where
                                             testdata/ is ROOT's, and none names a fixed path
                                             in /tmp
  doc_test.py flags LOGTIDE_BINARY ROOT      every flag in 'logtide --help' is in the man page
  doc_test.py man LOGTIDE_BINARY ROOT        the man page renders with no groff warning
  doc_test.py ci LOGTIDE_BINARY ROOT         README's first command builds only the binary and
                                             runs it on the sample; its second is .ci/run
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def unroff(line):
    line = re.sub(r"\\f[BIRP]", "", line)
    for a, b in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\e", "\\")):
        line = line.replace(a, b)
    return line


def examples_from(lines):
    """Yields (command, expected_lines) for each '$ ' line and the lines under it."""
    cmd, out = None, []
    for line in lines + [None]:
        if line is None or line.startswith("$ ") or line == "":
            if cmd is not None:
                yield cmd, out
            cmd, out = (line[2:], []) if line and line.startswith("$ ") else (None, [])
        elif cmd is not None:
            out.append(line)


def blocks(path):
    text = open(path, encoding="utf-8").read().split("\n")
    if path.endswith(".md"):
        inside, cur = False, []
        for line in text:
            if line.startswith("```"):
                if inside:
                    yield cur
                inside, cur = not inside, []
            elif inside:
                cur.append(line)
    else:
        inside, cur = False, []
        for line in text:
            if line.startswith(".EX"):
                inside, cur = True, []
            elif line.startswith(".EE"):
                inside = False
                yield [unroff(l) for l in cur]
            elif inside:
                cur.append(line)


def examples(binary, root):
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ["PATH"])
    passed = failed = 0
    for doc in ("README.md", "man/logtide.1"):
        # The files an example writes (a state, outputs, a log it grows) land in the scratch
        # folder, never in the source tree or a shared folder; the inputs are read through the
        # testdata link.
        scratch = tempfile.mkdtemp(prefix="logtide-docs-")
        os.symlink(os.path.join(root, "testdata"), os.path.join(scratch, "testdata"))
        for block in blocks(os.path.join(root, doc)):
            for cmd, expected in examples_from(block):
                if re.search(r"(?<![\w.-])/(tmp|var/tmp|dev/shm)/", cmd):
                    failed += 1
                    print("FAIL %s: $ %s\n  names a fixed path in a shared temporary folder: write a"
                          " relative path (the examples run in a scratch folder)" % (doc, cmd))
                    continue
                got = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=scratch, env=env, capture_output=True, text=True)
                actual = got.stdout.rstrip("\n").split("\n") if got.stdout else []
                if got.returncode != 0 or actual != expected:
                    failed += 1
                    print("FAIL %s: $ %s\n  exit %d\n  expected: %r\n  actual:   %r\n  stderr: %s" % (
                        doc, cmd, got.returncode, expected, actual, got.stderr))
                else:
                    passed += 1
        shutil.rmtree(scratch)
    return passed, failed


def flags(binary, root):
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    man = unroff(open(os.path.join(root, "man/logtide.1"), encoding="utf-8").read())
    names = sorted(set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", help_text)))
    passed = failed = 0
    for name in names:
        if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", man):
            passed += 1
        else:
            failed += 1
            print("FAIL: %s is in --help but not in man/logtide.1" % name)
    if passed < 15:
        print("FAIL: only %d flags found in --help" % passed)
        failed += 1
    return passed, failed


def man(binary, root):
    # A merge or stash conflict left in the documents (groff takes the markers for text).
    for doc in ("man/logtide.1", "README.md", "bench/README.md"):
        for n, line in enumerate(open(os.path.join(root, doc), encoding="utf-8"), 1):
            if re.match(r"(<{7}|>{7}) |={7}$", line):
                print("FAIL: %s:%d: a conflict marker: %s" % (doc, n, line.rstrip()))
                return 0, 1
    got = subprocess.run(["groff", "-man", "-ww", "-z", os.path.join(root, "man/logtide.1")], capture_output=True, text=True)
    if got.returncode != 0 or got.stderr:
        print("FAIL: groff warnings:\n" + got.stderr)
        return 0, 1
    return 1, 0


def ci(binary, root):
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    commands = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    if len(commands) < 2 or commands[1].strip() != "bash .ci/run":
        print("FAIL: README's second command is not 'bash .ci/run': %r" % commands[:2])
        return 0, 1
    if "install-deps" not in commands[0] or "testdata/sample/app.log" not in commands[0]:
        print("FAIL: README's first command does not install, build and run on the sample: %r" % commands[0])
        return 0, 1
    # Building every test binary first takes many times as long (issue 32).
    if "--target logtide" not in commands[0]:
        print("FAIL: README's first command does not build only the binary (--target logtide): %r" % commands[0])
        return 0, 1
    return 1, 0


def main():
    what, binary, root = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    passed, failed = {"examples": examples, "flags": flags, "man": man, "ci": ci}[what](binary, root)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
