#!/usr/bin/env python3
"""Two logtide binaries side by side on bench/run.py's jobs: before and after a change.

  bench/compare.py --old OLD_LOGTIDE --new NEW_LOGTIDE [--gen LOGTIDE_GEN] [--lines N]
                   [--rounds R] [--jobs LIST] [--threads T] [--new-args FLAGS] [--instructions]

Each round runs every job once with each binary, the binaries' order alternating from round
to round (old first in odd rounds), so that a change in the machine's load falls on both. It
first checks that both binaries write the same bytes for every job (`cmp`). It prints, per
job, the median wall time and the median CPU time (user + system, from GNU time) of each
binary and their ratio new / old (wall time from time.perf_counter, CPU time in GNU time's
hundredths of a second: use inputs of a few seconds). With --instructions it also counts each binary's
instructions on the first 200,000 lines with --threads 1 (valgrind's callgrind): the same
count on a busy machine as on a quiet one, where wall times are not.
--new-args gives the new binary more flags (one string, split on spaces), so that one binary
can be compared with itself under an option: --old B --new B --new-args '--apply-threads 2'.
Inputs and outputs are kept in tmpfs (/dev/shm) when it has room. It asserts nothing.
"""
import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_jobs():
    spec = importlib.util.spec_from_file_location("bench_run", os.path.join(HERE, "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    return run.JOBS


def timed(cmd, out):
    """Runs cmd with stdout to `out`; returns (wall s, from time.perf_counter; cpu s, user +
    system from GNU time, in hundredths)."""
    with tempfile.NamedTemporaryFile("r") as t:
        with open(out, "w") as o:
            start = time.perf_counter()
            subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%U %S"] + cmd, stdout=o, check=True)
            wall = time.perf_counter() - start
        user, system = t.read().split()[-2:]
    return wall, float(user) + float(system)


def instructions(cmd):
    """Instructions of cmd under callgrind (its summary line), output discarded."""
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(d, "cg")] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--gen", help="logtide_gen (default: beside --new)")
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", default="1,2,3,4,5,7,9")
    ap.add_argument("--threads", type=int, help="--threads for both (default: their default)")
    ap.add_argument("--new-args", default="", help="more flags for the new binary only")
    ap.add_argument("--instructions", action="store_true")
    a = ap.parse_args()
    jobs_table = load_jobs()
    jobs = [int(j) for j in a.jobs.split(",")]
    if not set(jobs) <= set(jobs_table):
        sys.exit("--jobs: job numbers are %s" % ", ".join(str(j) for j in sorted(jobs_table)))
    old, new = os.path.abspath(a.old), os.path.abspath(a.new)
    gen = os.path.abspath(a.gen or os.path.join(os.path.dirname(new), "logtide_gen"))
    base = "/dev/shm" if shutil.disk_usage("/dev/shm").free > 3 * a.lines * 200 else None
    work = tempfile.mkdtemp(prefix="logtide-compare-", dir=base)
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

        def cmd(binary, job, path, threads=a.threads, extra=()):
            return ([binary, "-q"] + (["--threads", str(threads)] if threads else []) + list(extra) +
                    jobs_table[job][1] + [path])

        new_args = a.new_args.split()

        outs = {b: os.path.join(work, b + ".out") for b in ("old", "new")}
        for job in jobs:
            subprocess.run(cmd(old, job, logs), stdout=open(outs["old"], "w"), check=True)
            subprocess.run(cmd(new, job, logs, extra=new_args), stdout=open(outs["new"], "w"), check=True)
            if subprocess.run(["cmp", "-s", outs["old"], outs["new"]]).returncode != 0:
                sys.exit("job %d: the two binaries write different bytes" % job)
        print("check: on %d lines, both binaries write the same bytes for jobs %s\n" % (a.lines, a.jobs))
        wall = {(b, j): [] for b in ("old", "new") for j in jobs}
        cpu = {(b, j): [] for b in ("old", "new") for j in jobs}
        for r in range(a.rounds):
            order = (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old))
            for job in jobs:
                for name, binary in order:
                    w, c = timed(cmd(binary, job, logs, extra=new_args if name == "new" else ()), outs[name])
                    wall[(name, job)].append(w)
                    cpu[(name, job)].append(c)
        med = statistics.median
        print("%d lines, %d rounds, medians; threads: %s%s" % (a.lines, a.rounds, a.threads or "default",
                                                            "; new also " + a.new_args if new_args else ""))
        print("| job | old wall s | new wall s | new/old | old CPU s | new CPU s | new/old |")
        print("|---|---|---|---|---|---|---|")
        for job in jobs:
            ow, nw = med(wall[("old", job)]), med(wall[("new", job)])
            oc, nc = med(cpu[("old", job)]), med(cpu[("new", job)])
            print("| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |" % (job, ow, nw, nw / ow, oc, nc, nc / oc))
        if a.instructions:
            print("\ninstructions, 200,000 lines, --threads 1 (callgrind)")
            print("| job | old | new | new/old |")
            print("|---|---|---|---|")
            for job in jobs:
                o = instructions(cmd(old, job, small, 1))
                n = instructions(cmd(new, job, small, 1, new_args))
                print("| %d | %d | %d | %.4f |" % (job, o, n, n / o))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
