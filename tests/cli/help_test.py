#!/usr/bin/env python3
"""logtide --help (issue 32): every line fits in 80 columns, every group heading is there and
holds every flag (none is left under CLI11's default "Options"), and every example parses:
each is run with --explain (which reads no input and writes nothing) in a scratch folder.

  help_test.py LOGTIDE_BINARY
Prints 'N passed, N failed'.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

GROUPS = ["General", "Input and time", "Windows", "Aggregates and expressions", "Output",
          "State and cron", "Live"]


def main():
    binary = os.path.abspath(sys.argv[1])
    got = subprocess.run([binary, "--help"], capture_output=True, text=True)
    lines = got.stdout.split("\n")
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: " + what)

    check(got.returncode == 0, "--help exits %d" % got.returncode)
    for n, line in enumerate(lines, 1):
        check(len(line) <= 80, "line %d is %d columns: %r" % (n, len(line), line))
    headings = [l[:-1] for l in lines if re.match(r"^[A-Z][A-Za-z ]*:$", l)]
    for g in GROUPS + ["Examples"]:
        check(g in headings, "no heading %r (headings: %r)" % (g, headings))
    check("Options" not in headings, "a flag is in no group (the 'Options' heading)")
    # The groups come in this order.
    at = [headings.index(g) for g in GROUPS if g in headings]
    check(at == sorted(at), "groups out of order: %r" % headings)
    examples, cur = [], None
    inside = False
    for line in lines:
        if line == "Examples:":
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("    logtide") or (cur is not None and line.startswith("      ")):
            text = line.strip()
            cur = (cur + " " if cur else "") + text.rstrip("\\").strip()
            if not text.endswith("\\"):
                examples.append(cur)
                cur = None
    check(len(examples) >= 4, "only %d examples" % len(examples))
    with tempfile.TemporaryDirectory() as scratch:
        for ex in examples:
            argv = shlex.split(ex)[1:]
            if not any(a.startswith("--explain") for a in argv):
                argv.append("--explain")
            run = subprocess.run([binary] + argv, cwd=scratch, capture_output=True, text=True)
            check(run.returncode == 0, "example %r: exit %d: %s" % (ex, run.returncode, run.stderr))
        check(os.listdir(scratch) == [], "an example wrote %r" % os.listdir(scratch))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
