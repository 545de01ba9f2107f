#!/usr/bin/env python3
"""Savepoints (issue 33 item 3; man/logtide.1, SAVEPOINTS).

  savepoint_test.py LOGTIDE TESTDATA_DIR

Over every earlier-format state in testdata/state-formats/: `state export`, `state import`, and
export again give the same bytes (that the imported state resumes to the uninterrupted run's
output is state/earlier-formats' "savepoint" pass). Then a corruption loop over two savepoints:
every single-byte change, lost, repeated, swapped or foreign line and every cut is refused with
exit 5, a message naming the savepoint and the line, and no state file made. A savepoint of a
newer format, or holding a newer state format, is refused as such; an existing state file is
never overwritten. Prints 'N passed, N failed'.
"""
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from state_rows import xxh64  # noqa: E402  (XXH64 as the xxHash specification gives it)


def reseal(lines):
    """The lines' sums made again, chained, after their bodies were changed."""
    out, prev = [], 0
    for line in lines:
        body = line[:line.rindex(b',"sum":"')]
        prev = xxh64(body, prev)
        out.append(body + b',"sum":"%016x"}' % prev)
    return out


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, cond):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL " + name)


def main():
    binary, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="logtide-savepoint-")
    c = Checks()
    try:
        run(binary, data, work, c)
    finally:
        shutil.rmtree(work)
    print("%d passed, %d failed" % (c.passed, c.failed))
    sys.exit(1 if c.failed else 0)


def export(binary, state):
    p = subprocess.run([binary, "state", "export", state], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode()


def import_(binary, savepoint_bytes, state, work):
    path = os.path.join(work, "in.savepoint")
    with open(path, "wb") as f:
        f.write(savepoint_bytes)
    p = subprocess.run([binary, "state", "import", path, state], capture_output=True)
    return p.returncode, p.stderr.decode()


def remove_state(state):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(state + suffix):
            os.remove(state + suffix)


def run(binary, data, work, c):
    states = sorted(glob.glob(os.path.join(data, "state-formats", "*", "*", "state.db")))
    c.check("earlier-format states were found", len(states) > 0)
    savepoints = {}
    for path in states:
        name = "/".join(path.split(os.sep)[-3:-1])
        copy = os.path.join(work, "orig.db")
        shutil.copyfile(path, copy)
        rc, first, err = export(binary, copy)
        c.check("%s: export exits 0 (%s)" % (name, err.strip()), rc == 0)
        c.check("%s: export leaves the state file's bytes as they were" % name,
                open(copy, "rb").read() == open(path, "rb").read())
        state = os.path.join(work, "imported.db")
        remove_state(state)
        rc, err = import_(binary, first, state, work)
        c.check("%s: import exits 0 (%s)" % (name, err.strip()), rc == 0)
        rc, again, err = export(binary, state)
        c.check("%s: export, import, export: the same bytes" % name, rc == 0 and again == first)
        lines = first.split(b"\n")[:-1]
        c.check("%s: the header, sections, info lines and window rows, then the end" % name,
                lines[0].startswith(b'{"savepoint":1,') and lines[-1].startswith(b'{"end":'))
        # Our own sums are the ones logtide writes: sealing the unchanged lines again is a no-op.
        c.check("%s: each line's sum is XXH64 of its body, seeded by the line before" % name,
                reseal(lines) == lines)
        savepoints[name] = first

    rng = random.Random(20261203)
    state = os.path.join(work, "damaged.db")
    chosen = [n for n in ("f7668ee/tumbling", "03c8924/sketches", "03c8924/two-inputs-gzip") if n in savepoints]
    c.check("the corruption loop's savepoints exist", len(chosen) == 3)
    other = savepoints[chosen[-1]].split(b"\n")[:-1]
    for name in chosen:
        sp = savepoints[name]
        lines = sp.split(b"\n")[:-1]
        cases = []
        for _ in range(150):
            i = rng.randrange(len(sp))
            b = rng.randrange(256)
            if b == sp[i]:
                b ^= 1
            cases.append(("byte %d changed" % i, sp[:i] + bytes([b]) + sp[i + 1:]))
        for _ in range(20):
            i = rng.randrange(len(sp))
            cases.append(("cut at byte %d" % i, sp[:i]))
        for i in range(len(lines)):
            cases.append(("line %d lost" % (i + 1), b"\n".join(lines[:i] + lines[i + 1:]) + b"\n"))
            cases.append(("line %d twice" % (i + 1), b"\n".join(lines[:i + 1] + lines[i:]) + b"\n"))
            if i + 1 < len(lines):
                swapped = lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2:]
                cases.append(("lines %d and %d swapped" % (i + 1, i + 2), b"\n".join(swapped) + b"\n"))
            cases.append(("line %d from another savepoint" % (i + 1),
                          b"\n".join(lines[:i] + [other[min(i, len(other) - 1)]] + lines[i + 1:]) + b"\n"))
        cases.append(("a line after the end", sp + lines[1] + b"\n"))
        cases.append(("empty", b""))
        bad = 0
        for what, text in cases:
            if text == sp:
                continue
            remove_state(state)
            rc, err = import_(binary, text, state, work)
            said_line = re.search(r"savepoint \S+:\d+: |savepoint \S+ is empty", err) is not None
            if rc != 5 or not said_line or os.path.exists(state):
                bad += 1
                if bad <= 5:
                    print("FAIL %s, %s: exit %d, state made: %s: %s" % (name, what, rc, os.path.exists(state), err.strip()))
        c.check("%s: %d damaged savepoints are all refused at a line, making no state" % (name, len(cases)), bad == 0)

    sp = savepoints[chosen[0]]
    lines = sp.split(b"\n")[:-1]
    newer = sp.replace(b'{"savepoint":1,', b'{"savepoint":2,', 1)
    remove_state(state)
    rc, err = import_(binary, newer, state, work)
    c.check("a savepoint of a newer format is refused as one (%s)" % err.strip(),
            rc == 5 and "newer logtide" in err and "format 2" in err and not os.path.exists(state))
    header = re.sub(rb'"state_format":\d+', b'"state_format":99', lines[0])
    rc, err = import_(binary, b"\n".join(reseal([header] + lines[1:])) + b"\n", state, work)
    c.check("a savepoint holding a newer state format is refused as one (%s)" % err.strip(),
            rc == 5 and "newer logtide" in err and "format 99" in err and not os.path.exists(state))
    rc, err = import_(binary, b"\n".join(reseal(lines)) + b"\n", state, work)
    c.check("the same savepoint sealed again by this test imports (%s)" % err.strip(), rc == 0)
    before = open(state, "rb").read()
    rc, err = import_(binary, sp, state, work)
    c.check("an existing state file is refused (%s)" % err.strip(), rc == 5 and "exists" in err)
    c.check("and left as it was", open(state, "rb").read() == before)
    missing = os.path.join(work, "missing.db")
    rc, out, err = export(binary, missing)
    c.check("exporting a missing state fails (%s)" % err.strip(), rc != 0 and out == b"")
    c.check("and makes no file", not os.path.exists(missing))


if __name__ == "__main__":
    main()
