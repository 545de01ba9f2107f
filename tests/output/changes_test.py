#!/usr/bin/env python3
"""--changes retract|debezium (issue 29 item 4) against a plain model and a consumer.

  changes_test.py LOGTIDE LOGTIDE_GEN

For each query over generated input with disorder and late events:
  - the retract and debezium outputs equal tests/output/changes_model.py applied to the
    snapshot records of the same query (with --having: to the snapshot records without it);
  - a consumer applying the retract stream (a '-' removes a row that must be there, a '+' adds
    one) and one applying the debezium stream (c inserts a row whose key is new, u and d must
    find their before as the row stored under its key) end with exactly the table of the same
    query in --emit final (no --early, the same --lateness), revision fields left out.
Prints 'N passed, N failed'.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
META = ("revision", "phase", "final")

QUERIES = [
    # (query, aggregate names, sessions)
    (["--window", "tumbling:10s", "--by", "service", "--agg", "count", "--agg", "sum(bytes)", "--emit", "update",
      "--lateness", "5s", "--delay", "1s"], "count,sum_bytes", False),
    (["--window", "sliding:20s:10s", "--by", "service", "--agg", "count", "--agg", "max(latency_ms)", "--early", "3s",
      "--emit", "update", "--lateness", "4s", "--delay", "1s"], "count,max_latency_ms", False),
    (["--window", "tumbling:1m", "--by", "method", "--agg", "count", "--early", "10s"], "count", False),
    (["--window", "session:2s", "--by", "host", "--agg", "count", "--agg", "sum(bytes)", "--emit", "update",
      "--lateness", "3s", "--delay", "1s"], "count,sum_bytes", True),
    (["--window", "session:2s", "--by", "host", "--agg", "count", "--early", "500ms", "--delay", "1s"], "count", True),
]
HAVING = ("count >= 5", 'r["count"] >= 5')


def run(binary, args, path):
    p = subprocess.run([binary, "-q"] + args + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def model(snapshot, fmt, aggs, sessions, having=None):
    args = [sys.executable, os.path.join(HERE, "changes_model.py"), fmt, "--aggs", aggs]
    if sessions:
        args.append("--sessions")
    if having:
        args += ["--having", having]
    return subprocess.run(args, input=snapshot.encode(), stdout=subprocess.PIPE, check=True).stdout.decode()


def row(r):
    return json.dumps({k: v for k, v in r.items() if k not in META}, sort_keys=True)


def ident(r, aggs):
    return json.dumps({k: v for k, v in r.items() if k not in META and k not in aggs}, sort_keys=True)


def apply_retract(text):
    table = {}
    for line in text.splitlines():
        r = json.loads(line)
        op = r.pop("op")
        t = json.dumps(r, sort_keys=True)
        if op == "+":
            table[t] = table.get(t, 0) + 1
        elif table.get(t, 0) == 0:
            raise AssertionError("retracts a row not in the table: " + line)
        else:
            table[t] -= 1
    return sorted(row(json.loads(t)) for t, n in table.items() for _ in range(n))


def apply_debezium(text, aggs):
    table = {}
    for line in text.splitlines():
        e = json.loads(line)
        before, after = e["before"], e["after"]
        if e["op"] == "c":
            assert before is None and ident(after, aggs) not in table, "c of a key in the table: " + line
        else:
            assert table.get(ident(before, aggs)) == before, "before is not the stored row: " + line
            del table[ident(before, aggs)]
        if e["op"] in ("c", "u"):
            table[ident(after, aggs)] = after
        else:
            assert e["op"] == "d" and after is None, line
    return sorted(row(r) for r in table.values())


def final_table(binary, query, path, having):
    q = list(query)
    if "--early" in q:
        i = q.index("--early")
        del q[i:i + 2]
    q = [a for a in q if a != "update"]
    q = [a for a in q if a != "--emit"]
    if having:
        q += ["--having", having]
    return sorted(row(json.loads(l)) for l in run(binary, q, path).splitlines())


def main():
    binary, gen = sys.argv[1], sys.argv[2]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "in.ndjson")
        with open(path, "wb") as f:
            subprocess.run([gen, "--lines", "20000", "--seed", "11", "--rate-per-s", "300", "--users", "50",
                            "--disorder-ms", "3000", "--late-fraction", "0.02"], stdout=f, check=True)
        for query, aggs, sessions in QUERIES:
            snapshot = run(binary, query, path)
            for having in (None, HAVING):
                extra = ["--having", having[0]] if having else []
                name = " ".join(query + extra)
                try:
                    want_final = final_table(binary, query, path, having[0] if having else None)
                    for fmt in ("retract", "debezium"):
                        got = run(binary, query + extra + ["--changes", fmt], path)
                        want = model(snapshot, fmt, aggs, sessions, having[1] if having else None)
                        assert got == want, "%s differs from the model" % fmt
                        table = apply_retract(got) if fmt == "retract" else apply_debezium(got, aggs.split(","))
                        assert table == want_final, "%s: the consumer's table is not --emit final's" % fmt
                        assert got.count("\n") > len(want_final), "%s: no revision at all" % fmt
                    print("ok: " + name)
                    passed += 1
                except (AssertionError, RuntimeError) as e:
                    print("FAIL: %s: %s" % (name, e))
                    failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
