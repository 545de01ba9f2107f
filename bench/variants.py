#!/usr/bin/env python3
"""One logtide binary on one of bench/run.py's jobs, plain and with extra flags: what a flag costs.

  bench/variants.py [--build DIR] [--job J] [--lines N] [--rounds R] [--threads T]
                    [--instructions] --variant 'NAME=FLAGS' [--variant ...] [--pair A,B ...]

FLAGS (split as a shell would) are added to the job's flags; an option the job has already
(`--window`) takes FLAGS' value instead of the job's. The plain job is always the first variant,
"plain". Each round runs every variant once, the order reversed from one round to the next, so
that a change in the machine's load falls on all of them. It prints, per variant, the median
wall time (time.perf_counter) and CPU time (user + system, GNU time) and their ratios to the
plain job's, the speed being plain / variant (with --pair A,B, B's against A's too, by medians,
round by round and as the median of the rounds' ratios); the output's bytes and records; and, with
--instructions, callgrind's instruction count on the first 200,000 lines with --threads 1 (the
same count on a busy machine as on a quiet one, where wall times are not).

Sanity, before timing: every variant runs once on the N lines, and every timed run must give
those bytes again (`cmp`). Its table is its last record of each window and key (the highest
revision, `"op":"-"` records left out), without revision, phase, final and op; the script says
whether that table equals the plain job's, and whether it does with the window bounds left out
too (a variant that moves only the windows' bounds, such as a time zone whose offsets are whole
hours on day windows, has the same table without them), and the sum of `count` over the table
(every event once, when nothing is late or nothing late is kept). Inputs and outputs are kept in
tmpfs (/dev/shm) when it has room. It asserts nothing but that the outputs do not change.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    spec = importlib.util.spec_from_file_location("bench_" + name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def options(flags):
    """flags -> [(option, [values])], an option's values being the tokens up to the next option."""
    out = []
    for tok in flags:
        if tok.startswith("--") or not out:
            out.append((tok, []))
        else:
            out[-1][1].append(tok)
    return out


def merge(job_flags, extra):
    """The job's flags without the options extra gives, then extra."""
    given = {opt for opt, _ in options(extra)}
    kept = [tok for opt, vals in options(job_flags) if opt not in given for tok in [opt] + vals]
    return kept + extra


REVISION_FIELDS = ("op", "revision", "phase", "final")


def table(path):
    """(records, table with bounds, table without bounds, sum of count, windows) of an output."""
    last = {}  # (window_start, window_end, key fields) -> (revision, row)
    records = 0
    with open(path) as f:
        for line in f:
            records += 1
            rec = json.loads(line)
            if rec.get("op") == "-":
                continue
            row = {k: v for k, v in rec.items() if k not in REVISION_FIELDS}
            key = (row["window_start"], row["window_end"], json.dumps(
                {k: v for k, v in row.items() if not isinstance(v, (int, float)) or isinstance(v, bool)},
                sort_keys=True))
            rev = rec.get("revision", 0)
            if key not in last or rev >= last[key][0]:
                last[key] = (rev, row)
    rows = [row for _, row in last.values()]
    with_bounds = sorted(json.dumps(r, sort_keys=True) for r in rows)
    without = sorted(json.dumps({k: v for k, v in r.items() if k not in ("window_start", "window_end")},
                                sort_keys=True) for r in rows)
    digest = lambda rs: hashlib.sha256("\n".join(rs).encode()).hexdigest()
    total = sum(r.get("count", 0) for r in rows)
    windows = len({(r["window_start"], r["window_end"]) for r in rows})
    return records, digest(with_bounds), digest(without), total, windows, len(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--job", type=int, default=1)
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, help="--threads for every run (default: logtide's default)")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=FLAGS", required=True)
    ap.add_argument("--pair", action="append", default=[], metavar="A,B",
                    help="also B's speed against A's (two variant names)")
    a = ap.parse_args()
    jobs = load("run").JOBS
    compare = load("compare")
    if a.job not in jobs:
        sys.exit("--job: job numbers are %s" % ", ".join(str(j) for j in sorted(jobs)))
    variants = [("plain", [])]
    for v in a.variant:
        name, sep, flags = v.partition("=")
        if not sep or not name or name == "plain":
            sys.exit("--variant %r: NAME=FLAGS, NAME not plain" % v)
        variants.append((name, shlex.split(flags)))
    build = os.path.abspath(a.build)
    logtide, gen = os.path.join(build, "logtide"), os.path.join(build, "logtide_gen")
    base = "/dev/shm" if shutil.disk_usage("/dev/shm").free > 3 * a.lines * 200 else None
    work = tempfile.mkdtemp(prefix="logtide-variants-", dir=base)
    try:
        logs = os.path.join(work, "logs.ndjson")
        with open(logs, "w") as f:
            subprocess.run([gen, "--lines", str(a.lines), "--seed", "1"], stdout=f, check=True)
        small = os.path.join(work, "small.ndjson")
        with open(logs) as f, open(small, "w") as s:
            for i, line in enumerate(f):
                if i == 200_000:
                    break
                s.write(line)

        def cmd(flags, path, threads=a.threads):
            return ([logtide, "-q"] + (["--threads", str(threads)] if threads else [])
                    + merge(jobs[a.job][1], flags) + [path])

        ref = {name: os.path.join(work, "%d.ref" % i) for i, (name, _) in enumerate(variants)}
        out = os.path.join(work, "out")
        facts = {}
        for name, flags in variants:
            with open(ref[name], "w") as o:
                subprocess.run(cmd(flags, logs), stdout=o, check=True)
            facts[name] = (os.path.getsize(ref[name]),) + table(ref[name])
        print("job %d (%s), %d lines of `logtide_gen --seed 1`; threads: %s" % (
            a.job, " ".join(jobs[a.job][1]), a.lines, a.threads or "default"))
        print("\n| variant | flags | bytes | records | table rows | windows | sum of count | table = plain's | without bounds |")
        print("|---|---|---:|---:|---:|---:|---:|---|---|")
        p = facts["plain"]
        for name, flags in variants:
            b, records, with_b, without_b, total, windows, rows = facts[name]
            print("| %s | `%s` | %d | %d | %d | %d | %d | %s | %s |" % (
                name, " ".join(flags) or "-", b, records, rows, windows, total,
                "yes" if with_b == p[2] else "no", "yes" if without_b == p[3] else "no"), flush=True)

        wall = {name: [] for name, _ in variants}
        cpu = {name: [] for name, _ in variants}
        for r in range(a.rounds):
            for name, flags in (variants if r % 2 == 0 else variants[::-1]):
                w, c = compare.timed(cmd(flags, logs), out)
                if subprocess.run(["cmp", "-s", out, ref[name]]).returncode != 0:
                    sys.exit("%s: a timed run wrote other bytes than the first run" % name)
                wall[name].append(w)
                cpu[name].append(c)
        med = statistics.median
        pw, pc = med(wall["plain"]), med(cpu["plain"])
        print("\n%d rounds, medians, interleaved; speed = plain's time / the variant's" % a.rounds)
        print("| variant | wall s | speed (wall) | wall s, each round | CPU s | speed (CPU) |")
        print("|---|---:|---:|---|---:|---:|")
        for name, _ in variants:
            w, c = med(wall[name]), med(cpu[name])
            print("| %s | %.3f | %.1f%% | %s | %.2f | %.1f%% |" % (
                name, w, 100 * pw / w, " ".join("%.3f" % x for x in wall[name]), c, 100 * pc / c))
        names = [name for name, _ in variants]
        pairs = [tuple(pr.split(",")) for pr in a.pair]
        for pr in pairs:
            if len(pr) != 2 or not set(pr) <= set(names):
                sys.exit("--pair %s: two of %s" % (",".join(pr), ", ".join(names)))
        if pairs:
            print("\n| pair | same table | same without bounds | speed (wall medians) | speed, each round "
                  "| median of the rounds' | speed (CPU medians) |")
            print("|---|---|---|---:|---|---:|---:|")
            for x, y in pairs:
                ratios = [100 * u / v for u, v in zip(wall[x], wall[y])]
                print("| %s against %s | %s | %s | %.1f%% | %s | %.1f%% | %.1f%% |" % (
                    y, x, "yes" if facts[x][2] == facts[y][2] else "no",
                    "yes" if facts[x][3] == facts[y][3] else "no",
                    100 * med(wall[x]) / med(wall[y]),
                    " ".join("%.0f%%" % r for r in ratios), med(ratios),
                    100 * med(cpu[x]) / med(cpu[y])))
        if a.instructions:
            print("\ninstructions, the first 200,000 lines, --threads 1 (callgrind)")
            print("| variant | instructions | plain / variant |")
            print("|---|---:|---:|")
            counts = {}
            for name, flags in variants:
                counts[name] = compare.instructions(cmd(flags, small, 1))
                print("| %s | %s | %.1f%% |" % (name, format(counts[name], ","),
                                               100 * counts["plain"] / counts[name]), flush=True)
            for x, y in pairs:
                print("| %s against %s | | %.1f%% |" % (y, x, 100 * counts[x] / counts[y]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
