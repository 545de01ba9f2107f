#!/usr/bin/env python3
"""Checks the sketch golden cases' expected outputs against exact answers computed here, not
against the binary: for each case folder under testdata/cases/sketches with a model.json, the
events of its in.ndjson (times in epoch milliseconds, read in order, none late) go through the
reference model (tests/oracle/reference.py), and every record of `expected` must match: a
quantile within 1% of the exact value of rank ceil(Q * n) (1-based), an approx_count_distinct past
its exact range within 3% (listed in model.json's "distinct_fields"), everything else equal.

model.json: {"window": "tumbling"|"sliding"|"session", "size", "slide", "gap" (seconds),
             "by": FIELD, "aggs": [[output name, model function, field], ...],
             "distinct_fields": [...]}   (model functions: see reference.aggregate)

Usage: sketch_goldens.py CASES_DIR      Prints one line per case; exits 1 on any mismatch.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import reference  # noqa: E402

NS = reference.NS


def check(case):
    with open(os.path.join(case, "model.json")) as f:
        m = json.load(f)
    events = []
    with open(os.path.join(case, "in.ndjson")) as f:
        for line in f:
            rec = json.loads(line)
            events.append((rec["ts"] * 1_000_000, rec))
    model = reference.Model(m["window"], m["size"] * NS, m["slide"] * NS, m["gap"] * NS, 0, 0, "final",
                            m["by"], [tuple(a) for a in m["aggs"]], 1)
    exact = "".join(line + "\n" for line in model.run([events]))
    if model.late:
        return "the model finds late events: the case must have none"
    quantiles = {name for name, fn, _ in m["aggs"] if fn.startswith("quantile:")}
    with open(os.path.join(case, "expected")) as f:
        expected = f.read()
    if not reference.same_records(exact, expected, quantiles, set(m.get("distinct_fields", []))):
        for want, have in zip(exact.splitlines(), expected.splitlines()):
            if not reference.same_records(want, have, quantiles, set(m.get("distinct_fields", []))):
                return "expected holds\n    %s\n  where the exact answer is\n    %s" % (have, want)
        return "expected has %d records, the exact answer %d" % (
            len(expected.splitlines()), len(exact.splitlines()))
    return None


def main():
    root = sys.argv[1]
    failed = checked = 0
    for name in sorted(os.listdir(root)):
        case = os.path.join(root, name)
        if not os.path.exists(os.path.join(case, "model.json")):
            continue
        problem = check(case)
        checked += 1
        if problem:
            failed += 1
            print("FAIL %s: %s" % (name, problem))
        else:
            print("ok   %s" % name)
    if checked == 0:
        print("no case with a model.json under %s" % root)
        sys.exit(1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
