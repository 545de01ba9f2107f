#!/usr/bin/env python3
"""A plain model of --changes retract|debezium: turns the records of a snapshot run (the default
format, with revision, phase and final) into the changes logtide writes (man/logtide.1, --changes).

  changes_model.py retract|debezium [--sessions] [--having PYEXPR] < snapshot.ndjson

Works on parsed records, not bytes: each record's predecessors are the kept records of its key
(every field between window_end and revision) with the same window (tumbling, sliding), or whose
window lies inside its window (--sessions). A final record is not kept; with --having (a Python
expression over the record as `r`), the snapshot run must be without --having, and a record for
which it is false is not written but takes its predecessors back.
"""
import json
import sys

META = ("window_start", "window_end", "revision", "phase", "final")


def key_of(r):
    return json.dumps([[k, v] for k, v in r.items() if k not in META and k not in AGGS])


def instant(t):
    """An RFC 3339 UTC time ("...T10:01:01Z", "...T10:01:01.937Z") as a sortable tuple: the text
    alone does not sort ("Z" > ".")."""
    whole, _, frac = t.rstrip("Z").partition(".")
    return whole, frac.ljust(9, "0")


def text(r):
    return json.dumps(r, separators=(",", ":"), ensure_ascii=False)


def main():
    global AGGS
    fmt = sys.argv[1]
    sessions = "--sessions" in sys.argv
    having = sys.argv[sys.argv.index("--having") + 1] if "--having" in sys.argv else None
    AGGS = set(sys.argv[sys.argv.index("--aggs") + 1].split(",")) if "--aggs" in sys.argv else {"count"}
    kept = []  # records written and not yet final, in the order written
    out = []
    for line in sys.stdin:
        r = json.loads(line)
        k = key_of(r)
        s, e = r["window_start"], r["window_end"]
        if sessions:
            before = [p for p in kept if key_of(p) == k and instant(s) <= instant(p["window_start"])
                      and instant(p["window_end"]) <= instant(e)]
        else:
            before = [p for p in kept if key_of(p) == k and p["window_start"] == s and p["window_end"] == e]
        before.sort(key=lambda p: instant(p["window_start"]))
        write = having is None or eval(having, {}, {"r": r})
        same = [p for p in before if write and p["window_start"] == s and p["window_end"] == e]
        if fmt == "retract":
            out += ['{"op":"-",' + text(p)[1:] for p in before]
            if write:
                out.append('{"op":"+",' + text(r)[1:])
        else:
            out += ['{"op":"d","before":%s,"after":null}' % text(p) for p in before if p not in same]
            if write and same:
                out.append('{"op":"u","before":%s,"after":%s}' % (text(same[0]), text(r)))
            elif write:
                out.append('{"op":"c","before":null,"after":%s}' % text(r))
        kept = [p for p in kept if not any(p is b for b in before)]
        if write and not r["final"]:
            kept.append(r)
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
