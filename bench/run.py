#!/usr/bin/env python3
"""Benchmark suite (issue 4): logtide against DuckDB (1 and 2 threads), jq and Miller, and the
simdjson parse-only floor, on the same generated logs, rounds interleaved. Before any number is
printed, every tool's result for every job is checked against logtide's; for the sketches of
jobs 7 and 8 (issue 18), logtide's estimates are checked against exact values, within their
guarantees. Job 9 (issue 19) is job 1 with `--where` and a filter aggregate, against DuckDB's
WHERE and FILTER and against jq and Miller filtering for logtide in a pipeline.

Usage: bench/run.py [--build DIR] [--lines N] [--rounds R] [--duckdb DIR] [--jobs LIST]
  --duckdb DIR: a folder where `npm install @duckdb/node-api` was run (default /tmp/logtide-duckdb;
  installed there if missing). jq and Miller run job 1 on the first 200k lines only (~20 MB/s).
  --jobs LIST: the jobs to check and time, e.g. 1,3 (default: all). jq, Miller, the simdjson
  floor and the linear-growth check come with job 1; job 9's ratios to job 1 need both.
Prints a markdown table of medians, MB/s, peak RSS and ratios, then the linear-growth check.
"""
import argparse
import datetime
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
JOBS = {
    1: ("tumbling 1m by service: count, sum, avg", ["--window", "tumbling:1m", "--by", "service", "--agg", "count", "--agg", "sum(bytes)", "--agg", "avg(latency_ms)"]),
    2: ("sliding 1h every 1m by service: count, sum, avg", ["--window", "sliding:1h:1m", "--by", "service", "--agg", "count", "--agg", "sum(bytes)", "--agg", "avg(latency_ms)"]),
    3: ("count per user per minute", ["--window", "tumbling:1m", "--by", "user", "--agg", "count"]),
    4: ("sessions per user, 30 s gap", ["--window", "session:30s", "--by", "user", "--agg", "count"]),
    5: ("count per host per second", ["--window", "tumbling:1s", "--by", "host", "--agg", "count"]),
    7: ("tumbling 1m by service: p50, p95, p99 of latency, approx distinct users", ["--window", "tumbling:1m", "--by", "service", "--agg", "p50(latency_ms),p95(latency_ms),p99(latency_ms),approx_count_distinct(user)"]),
    8: ("sliding 1h every 1m by service: approx distinct users", ["--window", "sliding:1h:1m", "--by", "service", "--agg", "approx_count_distinct(user)"]),
    9: ("job 1 on the 5xx events (--where)", ["--window", "tumbling:1m", "--by", "service", "--where", "status >= 500", "--agg", "count", "--agg", "sum(bytes)", "--agg", "avg(latency_ms)"]),
}
# Job 8 exactly, timed in the same rounds: the count_distinct the sketch stands in for.
JOB8_EXACT = ["--window", "sliding:1h:1m", "--by", "service", "--agg", "count_distinct(user)"]
# Job 9's second half, timed in the same rounds: every event counted and the 5xx ones apart with
# a filter aggregate, for an error ratio (errors / count) per service per minute.
JOB9_FILTER = ["--window", "tumbling:1m", "--by", "service", "--agg", "count,errors=count() filter status >= 500"]
# Job 9's filter for jq and Miller, whose output logtide reads with job 1's flags.
JQ9 = ["jq", "-c", "select(.status >= 500)"]
MLR9 = ["mlr", "--ijsonl", "--ojsonl", "filter", "$status >= 500"]
ALL_JOBS = sorted(JOBS) + [6]  # 6: a one-line input, timed on its own


def ms(text):
    """RFC 3339 (logtide) or 'YYYY-MM-DD HH:MM:SS[.fff]' (DuckDB) -> epoch milliseconds."""
    text = text.replace("T", " ").rstrip("Z")
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
    d = datetime.datetime.strptime(text, fmt).replace(tzinfo=datetime.timezone.utc)
    return round(d.timestamp() * 1000)


def norm_rows(rows):
    """rows of (start, end, key, count, sum, avg) -> sorted, with avg rounded to 1e-6."""
    out = []
    for ws, we, key, n, s, a in rows:
        out.append((ms(ws), ms(we), key, int(n), int(s) if s not in ("", None) else None,
                    round(float(a), 6) if a not in ("", None) else None))
    return sorted(out)


# Job 7's quantiles: (name in logtide's output, Q).
QUANTILES = (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))
# The guarantees checked (man page, AGGREGATES): a quantile within 1% of the value of rank
# ceil(Q * n), quantile_disc's; approx_count_distinct's standard error is 0.81%, and 3% is 3.7
# of them.
QUANTILE_BOUND, DISTINCT_BOUND = 0.01, 0.03


def rel_err(est, exact):
    """|est - exact| / |exact|: 0 when equal, infinite when only exact is 0."""
    if est == exact:
        return 0.0
    return abs(est - exact) / abs(exact) if exact != 0 else float("inf")


def logtide_table(text, keyname, fields):
    """logtide's NDJSON records -> {(window start ms, key): [float(field) for field in fields]}."""
    out = {}
    for line in text.splitlines():
        r = json.loads(line)
        out[(ms(r["window_start"]), r[keyname])] = [float(r[f]) for f in fields]
    return out


def duck_table(text):
    """DuckDB's tab-separated rows -> {(window start ms, key): [float(value), ...]}."""
    out = {}
    for line in text.splitlines():
        ws, _, key, *values = line.split("\t")
        out[(ms(ws), key)] = [float(v) for v in values]
    return out


def worst(errors):
    """[(error, group)] -> (the largest error, its group as 'HH:MM service')."""
    e, (ws, key) = max(errors, key=lambda x: x[0])
    return e, "%s %s" % (datetime.datetime.fromtimestamp(ws / 1000, datetime.timezone.utc).strftime("%H:%M"), key)


def job7_errors(est, ref):
    """Worst relative errors of job 7's estimates est ({group: [p50, p95, p99, distinct]}, from
    logtide or from DuckDB's 7a) against DuckDB's 7ref ({group: [quantile_disc for each Q,
    count(DISTINCT), n]}): {what: (error, group)}."""
    if set(est) != set(ref):
        sys.exit("job 7: %d groups against %d in DuckDB's exact result, e.g. %s" % (len(est), len(ref), sorted(set(est) ^ set(ref))[:3]))
    return {what: worst([(rel_err(est[g][i], ref[g][i]), g) for g in sorted(ref)])
            for i, what in enumerate([name for name, _ in QUANTILES] + ["distinct"])}


def check_job7(name, est, ref):
    """Exits unless logtide's job 7 estimates keep their guarantees; returns the worst errors."""
    errs = job7_errors(est, ref)
    for what, (e, group) in errs.items():
        bound = DISTINCT_BOUND if what == "distinct" else QUANTILE_BOUND
        if e > bound:
            sys.exit("job 7 (%s): %s of logtide is %.3f%% off the exact value in %s (bound %.0f%%)" % (
                name, what, 100 * e, group, 100 * bound))
    return errs


def window_rows(records):
    """[(window start, window end, key, value, ...)] with times as text and values as JSON numbers
    or their text -> sorted, times in epoch ms, values int or float."""
    def num(v):
        v = str(v)
        return int(v) if v.lstrip("-").isdigit() else float(v)
    return sorted((ms(ws), ms(we), key) + tuple(num(v) for v in values) for ws, we, key, *values in records)


def same_rows(got, want):
    """None when both hold the same groups with equal integers and floats within 1e-9 (sums of
    doubles in another order), else the first difference."""
    if len(got) != len(want):
        return "%d rows against %d" % (len(got), len(want))
    for g, w in zip(got, want):
        if g[:3] != w[:3] or len(g) != len(w) or any(
                (x != y) if isinstance(x, int) and isinstance(y, int) else rel_err(x, y) > 1e-9 for x, y in zip(g[3:], w[3:])):
            return "%s against %s" % (g, w)
    return None


def logtide_rows(text, keyname):
    rows = []
    for line in text.splitlines():
        r = json.loads(line)
        rows.append((r["window_start"], r["window_end"], r[keyname], r["count"], r.get("sum_bytes"), r.get("avg_latency_ms")))
    return norm_rows(rows)


# Outputs go to memory (tmpfs): a pipe read by Python, or the disk writeback of hundreds of MB of
# job 3 and job 5 results, would take CPU from the runs being timed.
OUT_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
SCRATCH_OUT = os.path.join(OUT_DIR, "logtide-bench-out")


def timed(cmd, out_path=SCRATCH_OUT, **kw):
    """Runs cmd with its standard output to the file out_path; returns (seconds, peak RSS in MB,
    CPU seconds). Wall time from perf_counter (GNU time's %e has 10 ms steps: 4% of a 0.27 s
    run); peak RSS and CPU time (user + system, all threads; 10 ms steps) from GNU time. On a
    machine shared with other work, CPU time moves less than wall time."""
    with open(out_path, "wb") as out_file:
        t0 = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", "/tmp/logtide-bench-time"] + cmd,
                             stdout=out_file, stderr=subprocess.PIPE, text=True, **kw)
        secs = time.perf_counter() - t0
    if out.returncode != 0:
        # GNU time writes "Command terminated by signal N" to its -o file, not to stderr.
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), out.stderr, open("/tmp/logtide-bench-time").read()))
    kb, user, system = open("/tmp/logtide-bench-time").read().split()
    return secs, int(kb) / 1024, float(user) + float(system)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duckdb", default="/tmp/logtide-duckdb")
    ap.add_argument("--jobs", default=",".join(str(j) for j in ALL_JOBS))
    a = ap.parse_args()
    try:
        selected = sorted({int(j) for j in a.jobs.split(",")})
    except ValueError:
        sys.exit("--jobs: a comma-separated list of job numbers, e.g. 1,3")
    if not selected or not set(selected) <= set(ALL_JOBS):
        sys.exit("--jobs: job numbers are %s" % ", ".join(str(j) for j in ALL_JOBS))
    jobs = [j for j in selected if j in JOBS]  # the ones timed in rounds (not job 6)
    logtide = os.path.abspath(os.path.join(a.build, "logtide"))
    gen = os.path.abspath(os.path.join(a.build, "logtide_gen"))
    floor = os.path.abspath(os.path.join(a.build, "parse_floor"))
    # Inputs live in tmpfs when it has room: "page-cached" must mean in memory for every run.
    # (On the machine of bench/README.md, files under /tmp were partly evicted from the page
    # cache between runs, which added up to 10% to single runs of the 1 GB input, at random.)
    work = "/tmp/logtide-bench"
    if os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free > 3 * a.lines * 200:
        work = "/dev/shm/logtide-bench"
    os.makedirs(work, exist_ok=True)

    if not os.path.isdir(os.path.join(a.duckdb, "node_modules", "@duckdb", "node-api")):
        os.makedirs(a.duckdb, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "@duckdb/node-api@1.5.6-r.1"], cwd=a.duckdb, check=True)
    duck_env = dict(os.environ, NODE_PATH=os.path.join(a.duckdb, "node_modules"))
    duck_script = os.path.join(a.duckdb, "duckdb_job.mjs")  # ESM resolves packages next to the script
    with open(os.path.join(HERE, "duckdb_job.mjs")) as src, open(duck_script, "w") as dst:
        dst.write(src.read())

    def make(lines):
        path = os.path.join(work, "logs-%d.ndjson" % lines)
        if not os.path.exists(path):
            with open(path, "w") as f:
                subprocess.run([gen, "--lines", str(lines), "--seed", "1"], stdout=f, check=True)
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # page cache
        return path

    big, small, quarter = make(a.lines), make(200_000), make(a.lines // 4)
    one = os.path.join(work, "one.ndjson")
    with open(one, "w") as f:
        f.write(open(small).readline())
    big_mb, small_mb = os.path.getsize(big) / 1e6, os.path.getsize(small) / 1e6

    def lt(job, path, threads=None):
        args = {"8x": JOB8_EXACT, "9f": JOB9_FILTER}[job] if job in ("8x", "9f") else JOBS[job][1]
        return [logtide, "-q"] + (["--threads", str(threads)] if threads else []) + args + [path]

    def piped(filter_cmd, path):
        """filter_cmd on path, its output read by logtide with job 1's flags: one bash pipeline
        (GNU time adds up the CPU time of both processes)."""
        return ["bash", "-o", "pipefail", "-c", "%s | %s" % (shlex.join(filter_cmd + [path]), shlex.join(lt(1, "-")))]

    def duck(job, path, threads):
        return ["node", duck_script, str(job), path, str(threads)]

    def duck_out(query, path, threads=2):
        return subprocess.run(duck(query, path, threads), capture_output=True, text=True, env=duck_env, check=True).stdout

    def lt_out(job, path, threads=None):
        return subprocess.run(lt(job, path, threads), capture_output=True, text=True, check=True).stdout

    jq = ["jq", "-n", "-c", 'reduce inputs as $e ({}; .[$e.ts[0:16] + " " + $e.service] |= ((. // {c:0,s:0,l:0}) | .c += 1 | .s += $e.bytes | .l += $e.latency_ms)) | to_entries[] | [.key, .value.c, .value.s, (.value.l / .value.c)]']
    mlr = ["mlr", "--ijsonl", "--ojsonl", "put", "$minute = substr0($ts, 0, 15)", "then", "stats1", "-a", "count,sum,mean", "-f", "bytes,latency_ms", "-g", "minute,service"]

    # ---- agreement, on the small input -----------------------------------------------------
    keyname = {1: "service", 2: "service", 3: "user", 4: "user", 5: "host"}
    exact_jobs = [j for j in jobs if j in keyname]
    for job in exact_jobs:
        want = logtide_rows(subprocess.run(lt(job, small), capture_output=True, text=True, check=True).stdout, keyname[job])
        for threads in (1, 2):
            got = subprocess.run(duck(job, small, threads), capture_output=True, text=True, env=duck_env, check=True).stdout
            rows = norm_rows([line.split("\t") for line in got.splitlines()])
            if rows != want:
                diff = set(rows) ^ set(want)
                sys.exit("job %d: DuckDB (%d threads) disagrees with logtide on %d rows, e.g. %s" % (job, threads, len(diff), sorted(diff)[:3]))
    def minute_rows(pairs):
        return sorted((ms(m.replace("T", " ") + ":00"), svc, n, s, round(avg, 6)) for m, svc, n, s, avg in pairs)
    if 1 in jobs:
        want1 = [(r[0], r[2], r[3], r[4], r[5]) for r in logtide_rows(subprocess.run(lt(1, small), capture_output=True, text=True, check=True).stdout, "service")]
        jq_rows = [json.loads(l) for l in subprocess.run(jq + [small], capture_output=True, text=True, check=True).stdout.splitlines()]
        if minute_rows([(r[0].split(" ")[0], r[0].split(" ")[1], r[1], r[2], r[3]) for r in jq_rows]) != sorted(want1):
            sys.exit("job 1: jq disagrees with logtide")
        mlr_rows = [json.loads(l) for l in subprocess.run(mlr + [small], capture_output=True, text=True, check=True).stdout.splitlines()]
        if minute_rows([(r["minute"], r["service"], r["bytes_count"], r["bytes_sum"], r["latency_ms_mean"]) for r in mlr_rows]) != sorted(want1):
            sys.exit("job 1: Miller disagrees with logtide")
    if exact_jobs:
        print("check: on %d lines, DuckDB (1 and 2 threads) agrees with logtide on job%s %s%s\n" % (
            200_000, "s" if len(exact_jobs) > 1 else "", ", ".join(str(j) for j in exact_jobs),
            ", jq and Miller on job 1" if 1 in jobs else ""))

    # Job 7: sketches, checked within their guarantees against exact values from DuckDB (7ref),
    # on the small input and then the full one (7ref takes seconds there). DuckDB's own timed
    # exact queries (7d, 7c) must agree with 7ref. logtide's output on the full input is kept:
    # every timed run must give its bytes.
    reference = {}
    if 7 in jobs:
        fields7 = ["%s_latency_ms" % n for n, _ in QUANTILES] + ["approx_count_distinct_user"]
        for label, path, full in (("%d lines" % 200_000, small, False), ("the full input", big, True)):
            ref = duck_table(duck_out("7ref", path))
            for threads in (1, 2):
                disc = duck_table(duck_out("7d", path, threads))
                cont = duck_table(duck_out("7c", path, threads))
                if set(disc) != set(ref) or set(cont) != set(ref) or any(
                        disc[g] != ref[g][:4] or cont[g][3] != ref[g][3] for g in ref):
                    sys.exit("job 7: DuckDB's timed exact queries (%d threads) disagree with its reference on %s" % (threads, label))
            text = lt_out(7, path)
            errs = check_job7(label, logtide_table(text, "service", fields7), ref)
            if full:
                reference[7] = text
                duck_errs = job7_errors(duck_table(duck_out("7a", path)), ref)
            d = sorted(r[3] for r in ref.values())
            print("check: job 7 on %s, %d groups of %d-%d events and %d-%d distinct users: logtide within its guarantees" % (
                label, len(ref), min(r[4] for r in ref.values()), max(r[4] for r in ref.values()), d[0], d[-1]))
        print("job 7, worst relative error over the %d groups of the full input (logtide; DuckDB's approx_quantile and approx_count_distinct, 2 threads):" % len(ref))
        for what in errs:
            print("  %s against %s: %.3f%% (%s); DuckDB %.3f%% (%s)" % (
                what, "count(DISTINCT)" if what == "distinct" else "quantile_disc",
                100 * errs[what][0], errs[what][1], 100 * duck_errs[what][0], duck_errs[what][1]))
        print()

    # Job 8: approx_count_distinct over sliding windows, within 3% of the exact count: on the
    # small input against DuckDB (8ref), which must also agree exactly with logtide's
    # count_distinct; on the full input against logtide's count_distinct (8ref would need
    # minutes and gigabytes there). Both outputs on the full input are kept for the rounds.
    if 8 in jobs:
        for label, path, full in (("%d lines" % 200_000, small, False), ("the full input", big, True)):
            approx_text = lt_out(8, path)
            approx = logtide_table(approx_text, "service", ["approx_count_distinct_user"])
            text = lt_out("8x", path)
            exact = logtide_table(text, "service", ["count_distinct_user"])
            if not full:
                ref = duck_table(duck_out("8ref", path))
                if exact != ref:
                    sys.exit("job 8: logtide's count_distinct disagrees with DuckDB's count(DISTINCT) on %d windows, e.g. %s" % (
                        len(set(exact.items()) ^ set(ref.items())), sorted(set(exact) ^ set(ref))[:3]))
            else:
                reference[8], reference["8x"] = approx_text, text
            if set(approx) != set(exact):
                sys.exit("job 8: approx_count_distinct and count_distinct give different windows on %s" % label)
            e, group = worst([(rel_err(approx[g][0], exact[g][0]), g) for g in exact])
            if e > DISTINCT_BOUND:
                sys.exit("job 8: approx_count_distinct is %.3f%% off count_distinct in %s on %s (bound %.0f%%)" % (100 * e, group, label, 100 * DISTINCT_BOUND))
            d = sorted(r[0] for r in exact.values())
            print("check: job 8 on %s, %d windows of %d-%d distinct users: approx_count_distinct at most %.3f%% off count_distinct (%s)%s" % (
                label, len(exact), d[0], d[-1], 100 * e, group, "" if full else ", which agrees with DuckDB"))
        print()

    # Job 9: --where and the filter aggregate against DuckDB's WHERE and FILTER, on the small input
    # (DuckDB on 1 and 2 threads) and on the full one; jq and Miller filtering for logtide must
    # give the bytes of logtide's --where on the small input. Outputs are kept: every timed run
    # must give their bytes.
    if 9 in jobs:
        fields = {9: ["count", "sum_bytes", "avg_latency_ms"], "9f": ["count", "errors"]}
        for label, path, full in (("%d lines" % 200_000, small, False), ("the full input", big, True)):
            for job in (9, "9f"):
                text = lt_out(job, path)
                want = window_rows([(r["window_start"], r["window_end"], r["service"]) + tuple(r[f] for f in fields[job])
                                    for r in map(json.loads, text.splitlines())])
                for threads in (2,) if full else (1, 2):
                    diff = same_rows(window_rows(line.split("\t") for line in duck_out(job, path, threads).splitlines()), want)
                    if diff:
                        sys.exit("job %s: DuckDB (%d threads) disagrees with logtide on %s: %s" % (job, threads, label, diff))
                reference[(job, full)] = text
                if job == 9:
                    n5xx = sum(r[3] for r in want)
                else:
                    n, errors = sum(r[3] for r in want), sum(r[4] for r in want)
            for name, cmd in (("jq", JQ9), ("Miller", MLR9)):
                if not full and subprocess.run(piped(cmd, path), capture_output=True, text=True, check=True).stdout != reference[(9, False)]:
                    sys.exit("job 9: %s | logtide differs from logtide --where" % name)
            print("check: job 9 on %s, %d groups, %d of %d events with status >= 500: --where and the filter aggregate agree with DuckDB's WHERE and FILTER%s" % (
                label, len(want), errors, n, "" if full else "; jq | logtide and Miller | logtide give logtide --where's bytes"))
            if n5xx != errors:
                sys.exit("job 9: --where kept %d events, the filter aggregate counted %d" % (n5xx, errors))
        reference[9], reference["9f"] = reference[(9, True)], reference[("9f", True)]
        print()

    # ---- timing, rounds interleaved -----------------------------------------------------------
    runs = {}
    quarter_runs = []
    def add(name, job, mb, cmd, out_path=SCRATCH_OUT, **kw):
        secs, rss, cpu = timed(cmd, out_path, **kw)
        runs.setdefault((name, job), []).append((secs, rss, mb, cpu))
    cores = os.cpu_count()
    default_threads = 1 if cores <= 1 else min(cores, 8)  # as cli/flags.cc DefaultThreads
    for r in range(a.rounds):
        for job in jobs:
            # Every round checks that all threads give the bytes of one thread.
            out_one = os.path.join(OUT_DIR, "logtide-bench-out-1")
            out_many = os.path.join(OUT_DIR, "logtide-bench-out-n")
            add("logtide 1 thread", job, big_mb, lt(job, big, 1), out_one)
            if job == 1:
                # Linear growth: a quarter of the input, next to the full run so that the
                # machine's drift between rounds cancels out of the ratio.
                quarter_runs.append(timed(lt(1, quarter, 1)))
            add("logtide", job, big_mb, lt(job, big), out_many)
            if subprocess.run(["cmp", "-s", out_one, out_many]).returncode != 0:
                sys.exit("job %d: logtide's output with %d threads differs from one thread's" % (job, default_threads))
            if job in reference and open(out_many).read() != reference[job]:
                sys.exit("job %d: logtide's output differs from the one checked" % job)
            if job == 8:
                add("logtide count_distinct 1 thread", job, big_mb, lt("8x", big, 1), out_one)
                add("logtide count_distinct", job, big_mb, lt("8x", big), out_many)
                if subprocess.run(["cmp", "-s", out_one, out_many]).returncode != 0:
                    sys.exit("job 8: logtide's count_distinct with %d threads differs from one thread's" % default_threads)
                if open(out_many).read() != reference["8x"]:
                    sys.exit("job 8: logtide's count_distinct differs from the one checked")
                continue
            if job == 9:
                add("logtide filter aggregate 1 thread", job, big_mb, lt("9f", big, 1), out_one)
                add("logtide filter aggregate", job, big_mb, lt("9f", big), out_many)
                if subprocess.run(["cmp", "-s", out_one, out_many]).returncode != 0:
                    sys.exit("job 9: the filter aggregate with %d threads differs from one thread's" % default_threads)
                if open(out_many).read() != reference["9f"]:
                    sys.exit("job 9: the filter aggregate's output differs from the one checked")
                for name, query in (("WHERE", 9), ("FILTER", "9f")):
                    add("duckdb %s 1 thread" % name, job, big_mb, duck(query, big, 1), env=duck_env)
                    add("duckdb %s 2 threads" % name, job, big_mb, duck(query, big, 2), env=duck_env)
                for name, cmd in (("jq | logtide", JQ9), ("Miller | logtide", MLR9)):
                    add(name, job, small_mb, piped(cmd, small), out_many)
                    if open(out_many).read() != reference[(9, False)]:
                        sys.exit("job 9: %s gave other bytes than the ones checked" % name)
                continue
            if job == 7:
                for name, query in (("approx", "7a"), ("quantile_disc", "7d"), ("quantile_cont", "7c")):
                    add("duckdb %s 1 thread" % name, job, big_mb, duck(query, big, 1), env=duck_env)
                    add("duckdb %s 2 threads" % name, job, big_mb, duck(query, big, 2), env=duck_env)
                continue
            add("duckdb 1 thread", job, big_mb, duck(job, big, 1), env=duck_env)
            add("duckdb 2 threads", job, big_mb, duck(job, big, 2), env=duck_env)
        if 1 in jobs:
            add("simdjson floor", 1, big_mb, [floor, big])
            add("jq", 1, small_mb, jq + [small])
            add("Miller", 1, small_mb, mlr + [small])

    def med(name, job):
        v = runs[(name, job)]
        s = statistics.median(x[0] for x in v)
        return s, v[0][2] / s, max(x[1] for x in v)

    def med_cpu(name, job):
        return statistics.median(x[3] for x in runs[(name, job)])

    print("| job | tool | input MB | median s | MB/s | peak RSS MB | median CPU s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (name, job) in sorted(runs, key=lambda k: (k[1], not k[0].startswith("logtide"), k[0])):
        s, mbs, rss = med(name, job)
        print("| %d | %s | %.0f | %.3f | %.1f | %.1f | %.2f |" % (job, name.replace("|", "\\|"), runs[(name, job)][0][2], s, mbs, rss, med_cpu(name, job)))
    print("\n(logtide: the default, --threads %d (%d worker thread%s, the main thread parsing when it has nothing to apply, and the output thread) on %d cores; logtide 1 thread: --threads 1; outputs identical)" % (default_threads, default_threads - 1, "" if default_threads == 2 else "s", cores))
    for name in ("logtide 1 thread", "logtide") if 1 in jobs else ():
        lt1 = med(name, 1)[1]
        print("job 1, %s: / DuckDB 2 threads %.2fx, / DuckDB 1 thread %.2fx, / simdjson floor %.0f%%, / jq %.0fx, / Miller %.0fx" % (
            name, lt1 / med("duckdb 2 threads", 1)[1], lt1 / med("duckdb 1 thread", 1)[1], 100 * lt1 / med("simdjson floor", 1)[1],
            lt1 / med("jq", 1)[1], lt1 / med("Miller", 1)[1]))
    if 7 in jobs:
        for name in ("logtide 1 thread", "logtide"):
            lt7 = med(name, 7)[1]
            if 1 in jobs:
                # Also per round (job 1 and job 7 of one round ran within seconds of each other)
                # and by CPU time, which other work on the machine moves less.
                per_round = [100 * one[0] / seven[0] for one, seven in zip(runs[(name, 1)], runs[(name, 7)])]
                print("job 7 runs at %.0f%% of job 1's speed (%s; rounds %.0f%%-%.0f%%; by median CPU time %.0f%%)" % (
                    100 * lt7 / med(name, 1)[1], name, min(per_round), max(per_round), 100 * med_cpu(name, 1) / med_cpu(name, 7)))
            print("job 7, %s: %s" % (name, ", ".join("/ duckdb %s %s %.2fx" % (q, t, lt7 / med("duckdb %s %s" % (q, t), 7)[1])
                                                      for q in ("approx", "quantile_disc", "quantile_cont") for t in ("1 thread", "2 threads"))))
    if 8 in jobs:
        for name in ("logtide 1 thread", "logtide"):
            exact_name = name.replace("logtide", "logtide count_distinct")
            print("job 8, %s: approx_count_distinct takes %.2fx the time of count_distinct (%.3f s against %.3f s; CPU %.2f s against %.2f s), peak RSS %.1f MB against %.1f MB" % (
                name, med(name, 8)[0] / med(exact_name, 8)[0], med(name, 8)[0], med(exact_name, 8)[0],
                med_cpu(name, 8), med_cpu(exact_name, 8), med(name, 8)[2], med(exact_name, 8)[2]))
    if 9 in jobs:
        for what, name in (("--where", "logtide"), ("filter aggregate", "logtide filter aggregate")):
            for threads in (" 1 thread", ""):
                lt9 = med(name + threads, 9)[1]
                if 1 in jobs:
                    # As job 7: per round and by CPU time too.
                    per_round = [100 * one[0] / nine[0] for one, nine in zip(runs[("logtide" + threads, 1)], runs[(name + threads, 9)])]
                    print("job 9 (%s) runs at %.0f%% of job 1's speed (%s; rounds %.0f%%-%.0f%%; by median CPU time %.0f%%)" % (
                        what, 100 * lt9 / med("logtide" + threads, 1)[1], name + threads, min(per_round), max(per_round),
                        100 * med_cpu("logtide" + threads, 1) / med_cpu(name + threads, 9)))
                duck_name = "duckdb %s" % ("WHERE" if name == "logtide" else "FILTER")
                print("job 9 (%s), %s: / %s 2 threads %.2fx, / %s 1 thread %.2fx" % (
                    what, name + threads, duck_name, lt9 / med(duck_name + " 2 threads", 9)[1], duck_name, lt9 / med(duck_name + " 1 thread", 9)[1]))
        print("job 9 on %d lines (%.0f MB): jq | logtide %.1f MB/s, Miller | logtide %.1f MB/s; logtide --where on the full input: %.0fx and %.0fx as fast (%.0fx and %.0fx on one thread)" % (
            200_000, small_mb, med("jq | logtide", 9)[1], med("Miller | logtide", 9)[1],
            med("logtide", 9)[1] / med("jq | logtide", 9)[1], med("logtide", 9)[1] / med("Miller | logtide", 9)[1],
            med("logtide 1 thread", 9)[1] / med("jq | logtide", 9)[1], med("logtide 1 thread", 9)[1] / med("Miller | logtide", 9)[1]))
    for job in jobs:
        print("job %d: the default threads run %.2fx as fast as one thread" % (job, med("logtide 1 thread", job)[0] / med("logtide", job)[0]))
    if 9 in jobs:
        print("job 9 (filter aggregate): the default threads run %.2fx as fast as one thread" % (
            med("logtide filter aggregate 1 thread", 9)[0] / med("logtide filter aggregate", 9)[0]))
    for name in ("logtide 1 thread", "logtide") if 1 in jobs else ():
        if 2 in jobs:
            print("job 2 takes %.2fx the time of job 1 (%s)" % (med(name, 2)[0] / med(name, 1)[0], name))
        if 3 in jobs:
            print("job 3 runs at %.0f%% of job 1's speed (%s)" % (100 * med(name, 3)[1] / med(name, 1)[1], name))
    # Memory per open (window, key) entry in job 3: peak RSS above job 1's, per entry of the
    # fullest minute (from logtide's own output: the most records with one window start).
    def fullest_minute(path):
        # Read from a file, a line at a time: a Python process grown by hundreds of MB of output
        # would make every later fork (job 6's timing) slow.
        subprocess.run(lt(3, path), stdout=open(SCRATCH_OUT, "wb"), check=True)
        per_window = {}
        with open(SCRATCH_OUT) as f:
            for line in f:
                ws = line[17:41]
                per_window[ws] = per_window.get(ws, 0) + 1
        return max(per_window.values())
    if 3 in jobs:
        fullest = fullest_minute(big)
    if 3 in jobs and 1 in jobs:
        extra = (med("logtide 1 thread", 3)[2] - med("logtide 1 thread", 1)[2]) * 1024 * 1024
        print("job 3 (1 thread): at most %d (minute, user) entries open at once; %.0f bytes of peak RSS each above job 1" % (fullest, extra / fullest))

    # ---- job 6: a one-line input, what every cron or pipeline call pays ------------------------
    # posix_spawn (vfork) rather than fork: the cost of copying this Python process's page tables
    # is not logtide's.
    walls = []
    for _ in range(30 if 6 in selected else 0):
        t0 = time.perf_counter()
        pid = os.posix_spawn(logtide, lt(1, one), os.environ,
                             file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
        _, status = os.waitpid(pid, 0)
        walls.append(time.perf_counter() - t0)
        if status != 0:
            sys.exit("job 6: logtide failed")
    if walls:
        print("job 6: one-line input, median wall %.1f ms over 30 runs (includes spawning the process)" % (1000 * statistics.median(walls)))

    # ---- linear growth: 4x the input -----------------------------------------------------------
    if 1 in jobs:
        q = quarter_runs
        full = runs[("logtide 1 thread", 1)]
        print("linear growth (1 thread): 4x the input takes %.2fx the time; peak RSS %.1f MB vs %.1f MB" % (
            statistics.median(x[0] for x in full) / statistics.median(x[0] for x in q), max(x[1] for x in full), max(x[1] for x in q)))
    # Peak memory must not grow with the input for time-ordered logs, also with many keys.
    if 3 in jobs:
        q3 = max(timed(lt(3, quarter, 1))[1] for _ in range(a.rounds))
        print("job 3 (1 thread): peak RSS %.1f MB on the full input (at most %d entries open), %.1f MB on a quarter of it (%d)" % (
            max(x[1] for x in runs[("logtide 1 thread", 3)]), fullest, q3, fullest_minute(quarter)))
    # The other jobs too: a record of changes kept without --state once grew job 4 with the input.
    for job in (j for j in (2, 4, 5) if j in jobs):
        print("job %d (1 thread): peak RSS %.1f MB on the full input, %.1f MB on a quarter of it" % (
            job, max(x[1] for x in runs[("logtide 1 thread", job)]), timed(lt(job, quarter, 1))[1]))
    for f in ("logtide-bench-out-1", "logtide-bench-out-n", "logtide-bench-out"):
        if os.path.exists(os.path.join(OUT_DIR, f)):
            os.remove(os.path.join(OUT_DIR, f))
    print("\nmachine: %d cores, %s" % (os.cpu_count(), open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t")))


if __name__ == "__main__":
    main()
