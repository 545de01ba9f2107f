#!/usr/bin/env python3
"""--threads N writes the same bytes as --threads 1.

  identity_test.py LOGTIDE LOGTIDE_GEN

Over generated logs with disorder, late events, bad lines (invalid JSON, no time, a time of the
wrong type, strings with escapes), blank and CRLF lines, a line longer than any read block and
a last line without its newline, every query runs with --threads 1 and with 2, 3, 4 and 8 parsing
threads and 1, 2, 3, 4, 7 and 16 applying threads (--apply-threads: by key group, on files; a
pipe applies on one) at several block sizes (--io-buffer), from a file, from a pipe and from two
files. Results,
--late-output, --errors, standard error and the --stats counters must be byte-identical.
Prints 'N passed, N failed'.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

QUERIES = [
    ["--window", "tumbling:1m", "--by", "service", "--agg", "count", "--agg", "sum(bytes)", "--agg", "avg(latency_ms)"],
    ["--window", "sliding:10m:1m", "--by", "service", "--agg", "count", "--delay", "2s"],
    ["--window", "tumbling:10s", "--by", "user", "--agg", "count", "--agg", "first(path)", "--agg", "last(trace_id)",
     "--delay", "1s", "--lateness", "5s", "--emit", "update"],
    ["--window", "session:30s", "--by", "user", "--agg", "count", "--agg", "count_distinct(host)", "--delay", "3s"],
    ["--window", "tumbling:1s", "--by", "host,method", "--agg", "max(latency_ms)", "--agg", "min(status)"],
    # Many keys per firing, CSV, an aggregate that is always null: the output thread's batches.
    ["--window", "tumbling:1m", "--by", "user", "--agg", "count", "--agg", "sum(no_such_field)", "--agg",
     "avg(latency_ms)", "--format", "csv"],
    # Sketches, filtered aggregates, --where and --having over many keys: each worker's own
    # accumulators, merged into one order.
    ["--window", "sliding:2m:30s", "--by", "user", "--agg", "p99(latency_ms)", "--agg", "approx_count_distinct(path)",
     "--agg", "top_k(path, 2)", "--agg", "errors=count filter status >= 500", "--where", "latency_ms > 5",
     "--having", "p99_latency_ms > 20", "--delay", "2s"],
    # Sessions of two-field keys with lateness: corrections and late events decided per key.
    ["--window", "session:20s", "--by", "user,method", "--agg", "count", "--agg", "sum(bytes)", "--delay", "2s",
     "--lateness", "10s"],
    # Provisional records while windows are open.
    ["--window", "tumbling:5m", "--by", "user", "--agg", "count", "--early", "30s", "--delay", "1s"],
]


def make_input(gen, path, seed, lines):
    raw = subprocess.run([gen, "--lines", str(lines), "--seed", str(seed), "--rate-per-s", "300", "--users", "2000",
                          "--disorder-ms", "4000", "--late-fraction", "0.01"],
                         capture_output=True, check=True).stdout.decode().splitlines()
    rng = random.Random(seed)
    out = []
    for i, line in enumerate(raw):
        r = rng.random()
        if r < 0.004:
            out.append(line[: rng.randrange(1, len(line))])  # truncated: invalid JSON
        elif r < 0.006:
            out.append("")
        elif r < 0.008:
            out.append(line.replace('"ts":', '"time":'))  # no event time
        elif r < 0.009:
            out.append(line.replace('"ts":"', '"ts":["').replace('Z",', 'Z"],', 1))  # time is an array
        elif r < 0.011:
            out.append(line.replace('"service":"', '"service":"\\u00e9t\\u00e9 \\"q\\" ', 1))  # escapes
        elif r < 0.013:
            out.append(line + "\r")  # CRLF
        elif r < 0.014:
            out.append("[1,2,3]")
        else:
            out.append(line)
        if i == lines // 2:
            # One line longer than the largest read block below: the block grows.
            rec = json.loads(raw[i])
            rec["pad"] = "x" * (300 << 10)
            out.append(json.dumps(rec, separators=(",", ":")))
    text = "\n".join(out)  # the last line has no newline
    with open(path, "w") as f:
        f.write(text)


def run(binary, args, threads, block, inputs, work, tag, stdin_path=None, apply=1):
    late, errors = os.path.join(work, tag + ".late"), os.path.join(work, tag + ".errors")
    cmd = [binary, "--threads", str(threads), "--apply-threads", str(apply), "--io-buffer", str(block), "--stats",
           "--late-output", late, "--errors", errors] + args + inputs
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    p = subprocess.run(cmd, stdin=stdin, capture_output=True)
    if stdin_path:
        stdin.close()
    stats, other = [], []
    for line in p.stderr.decode().splitlines():
        if line.startswith("{"):
            s = json.loads(line)
            for timing in ("seconds", "mb_per_s"):
                s.pop(timing)
            stats.append(s)
        else:
            other.append(line)
    with open(late, "rb") as f:
        late_bytes = f.read()
    with open(errors, "rb") as f:
        error_bytes = f.read()
    return {"exit": p.returncode, "stdout": p.stdout, "late": late_bytes, "errors": error_bytes, "stderr": other,
            "stats": stats}


def main():
    binary, gen = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="logtide-threads-")
    a, b = os.path.join(work, "a.ndjson"), os.path.join(work, "b.ndjson")
    make_input(gen, a, 21, 40000)
    make_input(gen, b, 22, 15000)
    passed = failed = 0
    for qi, query in enumerate(QUERIES):
        for source in ("file", "pipe", "two files"):
            inputs = {"file": [a], "pipe": ["-"], "two files": [a, b]}[source]
            stdin = a if source == "pipe" else None
            want = run(binary, query, 1, 1 << 20, inputs, work, "want", stdin)
            if want["exit"] != 0 or not want["stdout"] or not want["stats"] or want["stats"][0]["bad_lines"] == 0:
                print("FAIL query %d (%s): the one-thread run did not give results, bad lines and stats: exit %d, %s"
                      % (qi, source, want["exit"], want["stderr"]))
                failed += 1
                continue
            # (--threads, --apply-threads, block size)
            for threads, apply, block in ((2, 1, 1 << 20), (3, 1, 4096), (8, 1, 64 << 10), (2, 1, 1), (2, 2, 1 << 20),
                                          (2, 3, 4096), (4, 4, 1 << 20), (2, 7, 16 << 10), (3, 16, 1 << 20),
                                          (8, 2, 1)):
                if block == 1 and source != "file":
                    continue  # one byte per block: slow, and the file case covers it
                if apply > 1 and source == "pipe" and threads != 2:
                    continue  # a pipe applies on one thread: one case shows --apply-threads does no harm
                got = run(binary, query, threads, block, inputs, work, "got", stdin, apply)
                diff = [k for k in want if got[k] != want[k]]
                what = "query %d, %s, --threads %d, --apply-threads %d, blocks of %d bytes" % (
                    qi, source, threads, apply, block)
                if diff:
                    print("FAIL %s: %s differ" % (what, ", ".join(diff)))
                    failed += 1
                else:
                    passed += 1
        print("ok: query %d (%s)" % (qi, " ".join(query[:2])))
    shutil.rmtree(work)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
