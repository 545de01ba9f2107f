#!/usr/bin/env python3
"""Savepoints (issue 33 item 3; man/logtide.1, SAVEPOINTS).

  savepoint_test.py LOGTIDE TESTDATA_DIR

Over every earlier-format state in testdata/state-formats/: `state export`, `state import`, and
export again give the same bytes (that the imported state resumes to the uninterrupted run's
output is state/earlier-formats' "savepoint" pass). The savepoints of format 1 in
testdata/savepoints/ (window rows in base64, written by an earlier logtide from those states)
import as the same states. A window row's text says its state: a count raised by 5 in the text
(and sealed again) resumes to records with that one count 5 higher; text not of a row's form is
refused at its line, naming the field. Then a corruption loop over three savepoints:
every single-byte change, lost, repeated, swapped or foreign line and every cut is refused with
exit 5, a message naming the savepoint and the line, and no state file made. A savepoint of a
newer format, or holding a newer state format, is refused as such; an existing state file is
never overwritten. Prints 'N passed, N failed'.
"""
import datetime
import glob
import gzip
import json
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
                lines[0].startswith(b'{"savepoint":2,') and lines[-1].startswith(b'{"end":'))
        # Our own sums are the ones logtide writes: sealing the unchanged lines again is a no-op.
        c.check("%s: each line's sum is XXH64 of its body, seeded by the line before" % name,
                reseal(lines) == lines)
        savepoints[name] = first

    format1(binary, data, work, c)
    edited_rows(binary, data, work, c, savepoints)
    sections_say(binary, data, work, c)
    migrated_all_fields(binary, data, work, c)
    odd_queries(binary, work, c)

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
    newer = sp.replace(b'{"savepoint":2,', b'{"savepoint":3,', 1)
    remove_state(state)
    rc, err = import_(binary, newer, state, work)
    c.check("a savepoint of a newer format is refused as one (%s)" % err.strip(),
            rc == 5 and "newer logtide" in err and "format 3" in err and not os.path.exists(state))
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


def format1(binary, data, work, c):
    """Savepoints of format 1 import as the states they were exported from."""
    old = sorted(glob.glob(os.path.join(data, "savepoints", "format1", "*", "*.savepoint")))
    c.check("format-1 savepoints were found", len(old) >= 5)
    for path in old:
        version, shape = path.split(os.sep)[-2], os.path.basename(path)[:-len(".savepoint")]
        name = "format 1 %s/%s" % (version, shape)
        text = open(path, "rb").read()
        c.check("%s: written as format 1" % name, text.startswith(b'{"savepoint":1,'))
        state = os.path.join(work, "from1.db")
        remove_state(state)
        rc, err = import_(binary, text, state, work)
        c.check("%s: imports (%s)" % (name, err.strip()), rc == 0)
        rc, now, err = export(binary, state)
        copy = os.path.join(work, "orig.db")
        shutil.copyfile(os.path.join(data, "state-formats", version, shape, "state.db"), copy)
        rc2, direct, err2 = export(binary, copy)
        c.check("%s: the state it makes exports as the state it came from does" % name,
                rc == 0 and rc2 == 0 and now == direct)


def sections_say(binary, data, work, c):
    """A state this logtide wrote has every section in its fields, and they say what happened."""
    d = os.path.join(data, "state-formats", "03c8924", "tumbling")
    flags = open(os.path.join(d, "flags")).read().split("\n")[:-1]
    w = tempfile.mkdtemp(dir=work)
    part1 = gzip.open(os.path.join(d, "part1.ndjson.gz")).read()
    with open(os.path.join(w, "app.log"), "wb") as f:
        f.write(part1)
    p = subprocess.run([binary, "-q"] + flags + ["--state", "s.db", "--hold", "-o", "out.ndjson", "app.log"],
                       capture_output=True, cwd=w)
    c.check("a --hold run writes a state (%s)" % p.stderr.decode().strip(), p.returncode == 0)
    rc, text, err = export(binary, os.path.join(w, "s.db"))
    sections = {}
    for line in text.split(b"\n")[:-1]:
        o = json.loads(line)
        if "section" in o:
            sections[o["section"]] = o
    c.check("every section is written field by field: %s" % sorted(sections),
            sorted(sections) == ["counters", "idleness", "inputs", "outputs", "watermark", "windows"] and
            all("fields" in o and "data" not in o for o in sections.values()))
    if len(sections) != 6:
        return
    events = [json.loads(l) for l in part1.splitlines()]
    inputs = sections["inputs"]["fields"]["inputs"]
    c.check("inputs: the file read to its end, its lines, its path",
            len(inputs) == 1 and inputs[0]["offset"] == len(part1) and inputs[0]["line"] == len(events) and
            inputs[0]["kind"] == "file" and inputs[0]["path"] == os.path.realpath(os.path.join(w, "app.log")))
    counters = sections["counters"]["fields"]
    c.check("counters: every line read", counters["lines"] == len(events) and counters["bad_lines"] == 0)
    out = open(os.path.join(w, "out.ndjson"), "rb").read()
    outputs = sections["outputs"]["fields"]["outputs"]
    c.check("outputs: the records' bytes written", len(outputs) == 1 and outputs[0]["role"] == "output" and
            outputs[0]["length"] == len(out) and outputs[0]["path"] == "out.ndjson")
    newest = max(int(datetime.datetime.strptime(e["ts"][:19], "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 10**9) + int((e["ts"][20:-1] or "0").ljust(9, "0"))
        for e in events)
    wm = sections["watermark"]["fields"]
    c.check("watermark: the newest event time read, less --delay 2s (%d, %d)" % (wm["watermark"], newest),
            flags[-2:] == ["--delay", "2s"] and wm["inputs"][0]["max_time"] == newest and
            wm["watermark"] == newest - 2 * 10**9)


    # Update mode with lateness and --changes retract: the revisions of the records written,
    # and the records a retraction may need, field by field; the savepoint reads back whole.
    d = os.path.join(data, "state-formats", "03c8924", "sliding-update-lateness")
    flags = open(os.path.join(d, "flags")).read().split("\n")[:-1] + ["--changes", "retract"]
    with open(os.path.join(w, "upd.log"), "wb") as f:
        f.write(gzip.open(os.path.join(d, "part1.ndjson.gz")).read())
    p = subprocess.run([binary, "-q"] + flags + ["--state", "u.db", "--hold", "-o", "u.ndjson", "upd.log"],
                       capture_output=True, cwd=w)
    c.check("an update-mode run with --changes retract writes a state (%s)" % p.stderr.decode().strip(),
            p.returncode == 0)
    rc, text, err = export(binary, os.path.join(w, "u.db"))
    got = {}
    for line in text.split(b"\n")[:-1]:
        o = json.loads(line)
        if "section" in o:
            got[o["section"]] = o.get("fields")
    changes, windows = got.get("changes") or {}, got.get("windows") or {}
    c.check("changes: the records kept, as many as it says",
            changes.get("count", 0) > 0 and len(changes["records"]) == changes["count"] and
            all(r["record"].startswith('"window_start":') for r in changes["records"]))
    c.check("windows: the revisions of the records written",
            len(windows.get("revisions", [])) > 0 and all(len(r["key"]) == 1 for r in windows["revisions"]))
    state = os.path.join(w, "u2.db")
    rc, err = import_(binary, text, state, w)
    rc2, again, err2 = export(binary, state)
    c.check("and its savepoint reads back whole (%s%s)" % (err, err2), rc == 0 and again == text)

    # Edits of the changes section that no run writes are refused at its line, naming the field:
    # a kept record that is not a record's fields, a key with another number of values than
    # --by has keys, an end before the start; so is the section as "data" of this version.
    lines = text.split(b"\n")[:-1]
    at = next(i for i, l in enumerate(lines) if l.startswith(b'{"section":"changes"'))
    sec = json.loads(lines[at])
    def edited(change):
        o = json.loads(lines[at])
        change(o["fields"]["records"][0])
        del o["sum"]
        return json.dumps(o, separators=(",", ":")).encode()[:-1] + b',"sum":"0000000000000000"}'
    def as_data(o):
        o = dict(o)
        del o["fields"]
        del o["sum"]
        o["data"] = "AAAAAAAAAAA="
        return json.dumps(o, separators=(",", ":")).encode()[:-1] + b',"sum":"0000000000000000"}'
    for what, bad, says in [
            ("a record that is not a record's fields", edited(lambda r: r.update(record="garbage")),
             '"records[0].record": not a record\'s fields'),
            ("a record with its braces", edited(lambda r: r.update(record="{" + r["record"] + "}")),
             '"records[0].record": not a record\'s fields'),
            ("a key of two values", edited(lambda r: r.update(key=r["key"] + ["extra"])),
             '"records[0].key" holds 2 values; a key of this job holds 1'),
            ("an end before its start", edited(lambda r: r.update(end=r["start"])),
             '"records[0].end": the window does not end after its start'),
            ("this version as data", as_data(sec), 'a changes section of version 1 must be written as its "fields"')]:
        edited_lines = list(lines)
        edited_lines[at] = bad  # sealed again below
        bad_state = os.path.join(w, "bad-changes.db")
        remove_state(bad_state)
        rc, err = import_(binary, b"\n".join(reseal(edited_lines)) + b"\n", bad_state, w)
        c.check("a changes section with %s is refused at its line, saying so (%s)" % (what, err.strip()),
                rc == 5 and (":%d: " % (at + 1)) in err and says in err and not os.path.exists(bad_state))


def migrated_all_fields(binary, data, work, c):
    """An older state's savepoint has its older sections as bytes; after a --hold run over
    nothing new (which migrates them) every section is fields."""
    d = os.path.join(data, "state-formats", "f7668ee", "tumbling")
    flags = open(os.path.join(d, "flags")).read().split("\n")[:-1]
    w = tempfile.mkdtemp(dir=work)
    shutil.copyfile(os.path.join(d, "state.db"), os.path.join(w, "s.db"))
    with open(os.path.join(w, "app.log"), "wb") as f:
        f.write(gzip.open(os.path.join(d, "part1.ndjson.gz")).read())

    def kinds():
        rc, text, err = export(binary, os.path.join(w, "s.db"))
        return sorted(("fields" if "fields" in o else "data") for o in map(json.loads, text.split(b"\n")[:-1])
                      if "section" in o)
    before = kinds()
    p = subprocess.run([binary, "-q"] + flags + ["--state", "s.db", "--hold", "app.log"], capture_output=True, cwd=w)
    after = kinds()
    c.check("an f7668ee state: some sections as bytes, then all as fields after a --hold run (%s, %s, %s)" %
            (before, after, p.stderr.decode().strip()),
            "data" in before and p.returncode == 0 and len(after) >= len(before) and set(after) == {"fields"})


def odd_queries(binary, work, c):
    """States of valid jobs whose text is unusual: a derived key that cuts a character (not
    UTF-8: {"hex":...}), and a --time-format holding newlines (the query's identity text then
    has lines that look like settings)."""
    w = tempfile.mkdtemp(dir=work)
    with open(os.path.join(w, "a.log"), "wb") as f:
        f.write(b'{"ts":1714557600000,"user":"\xc3\xa9t\xc3\xa9"}\n{"ts":1714557610000,"user":"x"}\n')
    with open(os.path.join(w, "t.log"), "wb") as f:
        f.write(b'{"t":"1714557600\\nwindow=session:1m","service":"a"}\n')
    # A value 1023 arrays deep (as deep as an input line may nest), kept by top_k in a
    # --changes record: the record is 1027 levels deep.
    deep = b"[" * 1023 + b"]" * 1023
    with open(os.path.join(w, "d.log"), "wb") as f:
        f.write(b'{"ts":1714557600000,"a":"x","o":%s}\n{"ts":1714557665000,"a":"x","o":1}\n' % deep)
    for name, flags, log, says in [
            ("a derived key that is not UTF-8",
             ["--window", "tumbling:1m", "--by", 'r=regexp_extract(user, "^(\\\\C)", 1)', "--agg", "count"],
             "a.log", b'"key":[{"hex":"c3"}]'),
            ("a --time-format with newlines",
             ["--window", "tumbling:1m", "--by", "service", "--agg", "count", "--time", "t",
              "--time-format", "%s\nwindow=session:1m"], "t.log", b'"key":["a"]'),
            # The query's by= and agg= lines then span two lines each.
            ("a derived key's and an aggregate's name with a newline",
             ["--window", "tumbling:1m", "--by", 'a\nb=concat(user, "x")', "--agg", "n\nm=count",
              "--emit", "update", "--lateness", "5m", "--changes", "retract"],
             "a.log", b'by=a\\nb=concat(.user,\\"x\\")\\nagg=n\\nm=count'),
            ("a --changes record over a value as deep as a line may nest",
             ["--window", "tumbling:1m", "--by", "a", "--agg", "count", "--agg", "top_k(o, 2)",
              "--emit", "update", "--lateness", "5m", "--changes", "retract"], "d.log", b'"section":"changes"')]:
        for f in ("s.db", "s2.db"):
            remove_state(os.path.join(w, f))
        for f in ("o1", "o2", "o1.before"):
            if os.path.exists(os.path.join(w, f)):
                os.remove(os.path.join(w, f))
        p = subprocess.run([binary, "-q"] + flags + ["--state", "s.db", "--hold", "-o", "o1", log],
                           capture_output=True, cwd=w)
        rc, text, err = export(binary, os.path.join(w, "s.db"))
        c.check("%s: the job runs and its state exports (%s%s)" % (name, p.stderr.decode().strip(), err.strip()),
                p.returncode == 0 and rc == 0 and says in text)
        rc, err = import_(binary, text, os.path.join(w, "s2.db"), w)
        rc2, again, err2 = export(binary, os.path.join(w, "s2.db"))
        c.check("%s: import, export: the same bytes (%s%s)" % (name, err, err2), rc == 0 and again == text)
        # Each resumed from the output as the --hold run left it (the state says where it is).
        shutil.copyfile(os.path.join(w, "o1"), os.path.join(w, "o1.before"))
        outs = []
        for state in ("s.db", "s2.db"):
            shutil.copyfile(os.path.join(w, "o1.before"), os.path.join(w, "o1"))
            p = subprocess.run([binary, "-q"] + flags + ["--state", state, "-o", "o1", log], capture_output=True, cwd=w)
            outs.append((p.returncode, open(os.path.join(w, "o1"), "rb").read(), p.stderr))
        c.check("%s: the original and the imported state resume to the same bytes" % name,
                outs[0][0] == 0 and outs[0] == outs[1] and len(outs[0][1]) > 0)


def rows_of(savepoint):
    lines = savepoint.split(b"\n")[:-1]
    return lines, [i for i, l in enumerate(lines) if l.startswith(b'{"window":')]


def edited_rows(binary, data, work, c, savepoints):
    """A row's text is its state: an edited count resumes as that count."""
    d = os.path.join(data, "state-formats", "03c8924", "tumbling")
    flags = open(os.path.join(d, "flags")).read().split("\n")[:-1]
    c.check("the tumbling job counts per service", flags[:4] == ["--window", "tumbling:5s", "--by", "service"])
    lines, rows = rows_of(savepoints["03c8924/tumbling"])
    i = rows[len(rows) // 2]
    row = json.loads(lines[i][:lines[i].rindex(b',"sum":"')] + b"}")
    n = row["state"]["aggs"]["count"]["n"]
    c.check("a window row names its pane's start, its key and its count",
            isinstance(row["window"]["start"], int) and len(row["window"]["key"]) == 1 and n >= 1)
    edited = lines[i].replace(b'"count":{"n":%d}' % n, b'"count":{"n":%d}' % (n + 5), 1)
    c.check("the count was edited", edited != lines[i])

    def resume(savepoint_lines):
        w = tempfile.mkdtemp(dir=work)
        state = os.path.join(w, "s.db")
        rc, err = import_(binary, b"\n".join(reseal(savepoint_lines)) + b"\n", state, w)
        if rc != 0:
            return None, err
        log = os.path.join(w, "app.log")
        with open(log, "wb") as f:
            f.write(gzip.open(os.path.join(d, "part1.ndjson.gz")).read())
            f.write(gzip.open(os.path.join(d, "part2.ndjson.gz")).read())
        p = subprocess.run([binary, "-q"] + flags + ["--state", state, log], capture_output=True, cwd=w)
        return p.stdout, p.stderr.decode()

    plain, err = resume(lines)
    changed, err2 = resume(lines[:i] + [edited] + lines[i + 1:])
    c.check("the savepoint resumes, as is and edited (%s%s)" % (err, err2), plain is not None and changed is not None)
    if plain is None or changed is None:
        return
    start = datetime.datetime.fromtimestamp(row["window"]["start"] // 10**9, datetime.timezone.utc)
    start = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    key = row["window"]["key"][0]
    a, b = [json.loads(l) for l in plain.splitlines()], [json.loads(l) for l in changed.splitlines()]
    diffs = [(x, y) for x, y in zip(a, b) if x != y]
    c.check("the edited savepoint resumes to the same records but one", len(a) == len(b) and len(diffs) == 1)
    if len(diffs) == 1:
        x, y = diffs[0]
        c.check("that one is the row's window and key, its count 5 higher and nothing else",
                x["window_start"] == start and x["service"] == key and y["count"] == x["count"] + 5 and
                {k: v for k, v in y.items() if k != "count"} == {k: v for k, v in x.items() if k != "count"})

    # Text not of a row's form, sealed again: refused at the line, naming the field.
    for what, bad, says in [
            ("a missing field", lines[i].replace(b'"count":{"n":%d}' % n, b'"count":{}', 1), '"aggs.count.n" is missing'),
            ("a field of another type", lines[i].replace(b'"count":{"n":%d}' % n, b'"count":{"n":"%d"}' % n, 1),
             '"aggs.count.n" is not a whole number'),
            ("a field its form does not have", lines[i].replace(b'"count":{"n":%d}' % n, b'"count":{"n":%d,"m":1}' % n, 1),
             '"aggs.count.m" is not a field of its form'),
            ("a negative count", lines[i].replace(b'"count":{"n":%d}' % n, b'"count":{"n":-%d}' % n, 1),
             '"aggs.count.n": a count is not negative'),
            ("a key of two values", re.sub(rb'"key":\[([^]]*)\]', rb'"key":[\1,"extra"]', lines[i], count=1),
             '"key" holds 2 values; a key of this job holds 1 (one per --by key)'),
            ("a key of no value", re.sub(rb'"key":\[[^]]*\]', b'"key":[]', lines[i], count=1),
             '"key" holds 0 values; a key of this job holds 1'),
            ("a field the line does not have", lines[i].replace(b'{"window":', b'{"extra":1,"window":', 1),
             '"extra" is not a field of this savepoint line'),
            ("a field of the line given twice", lines[i].replace(b'{"window":', b'{"window":1,"window":', 1),
             '"window" is given twice'),
            ("JSON that does not parse", lines[i].replace(b'"window":', b'"window"', 1), 'not JSON: '),
            ("a key that is not an array", re.sub(rb'"key":\[[^]]*\]', b'"key":"x"', lines[i], count=1),
             '"key" is not an array')]:
        state = os.path.join(work, "bad.db")
        remove_state(state)
        rc, err = import_(binary, b"\n".join(reseal(lines[:i] + [bad] + lines[i + 1:])) + b"\n", state, work)
        c.check("a row with %s is refused at its line, saying so (%s)" % (what, err.strip()),
                bad != lines[i] and rc == 5 and (":%d: " % (i + 1)) in err and says in err and not os.path.exists(state))
    # Rows moved out of key order (each line sealed again) are refused.
    if len(rows) >= 2:
        j, k = rows[0], rows[1]
        swapped = list(lines)
        swapped[j], swapped[k] = lines[k], lines[j]
        rc, err = import_(binary, b"\n".join(reseal(swapped)) + b"\n", os.path.join(work, "order.db"), work)
        c.check("rows out of key order are refused (%s)" % err.strip(), rc == 5 and "key order" in err)


if __name__ == "__main__":
    main()
