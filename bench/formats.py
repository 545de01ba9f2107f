#!/usr/bin/env python3
"""Job 1 over the same events written as NDJSON, logfmt, CSV and TSV (--input-format).

  bench/formats.py [--build DIR] [--lines N] [--rounds R] [--threads T] [--instructions]

Generates N lines with logtide_gen (seed 1), writes them again as logfmt (key=value, every
value bare: the generator's values hold no spaces or quotes) and as CSV and TSV with a header,
and checks that job 1 (bench/run.py) writes the same bytes over each of them as over the NDJSON
(the values type alike: numbers bare, the rest strings). Then times job 1 on each format, in
rounds whose order rotates, and prints per format the median wall and CPU time (user + system,
GNU time) and the speed against NDJSON (NDJSON's median time / the format's). With
--instructions it also counts each format's instructions on the first 200,000 lines with
--threads 1 (valgrind's callgrind: the same count on a busy machine as on a quiet one).
Inputs are kept in tmpfs (/dev/shm) when it has room. It asserts nothing.
"""
import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = ("ndjson", "logfmt", "csv", "tsv")


def load(name):
    spec = importlib.util.spec_from_file_location("bench_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scalar(v):
    return json.dumps(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def convert(ndjson, out, fmt, limit=None):
    with open(ndjson) as f, open(out, "w") as o:
        header = None
        for i, line in enumerate(f):
            if limit is not None and i == limit:
                break
            rec = json.loads(line)
            if fmt == "logfmt":
                o.write(" ".join("%s=%s" % (k, scalar(v)) for k, v in rec.items()) + "\n")
                continue
            sep = "," if fmt == "csv" else "\t"
            if header is None:
                header = list(rec)
                o.write(sep.join(header) + "\n")
            if list(rec) != header:
                sys.exit("line %d has other fields than the first" % (i + 1))
            o.write(sep.join(scalar(rec[k]) for k in header) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, help="--threads (default: logtide's default)")
    ap.add_argument("--instructions", action="store_true")
    a = ap.parse_args()
    logtide = os.path.abspath(os.path.join(a.build, "logtide"))
    gen = os.path.abspath(os.path.join(a.build, "logtide_gen"))
    job = load("run").JOBS[1][1]
    compare = load("compare")  # timed and instructions, measured as compare.py measures
    base = "/dev/shm" if shutil.disk_usage("/dev/shm").free > 6 * a.lines * 200 else None
    work = tempfile.mkdtemp(prefix="logtide-formats-", dir=base)
    try:
        paths = {f: os.path.join(work, "logs." + f) for f in FORMATS}
        with open(paths["ndjson"], "w") as f:
            subprocess.run([gen, "--lines", str(a.lines), "--seed", "1"], stdout=f, check=True)
        for fmt in FORMATS[1:]:
            convert(paths["ndjson"], paths[fmt], fmt)

        def cmd(fmt, path, threads=a.threads):
            return ([logtide, "-q", "--input-format", fmt] + (["--threads", str(threads)] if threads else []) +
                    job + [path])

        outs = {f: os.path.join(work, f + ".out") for f in FORMATS}
        for fmt in FORMATS:
            subprocess.run(cmd(fmt, paths[fmt]), stdout=open(outs[fmt], "w"), check=True)
            if subprocess.run(["cmp", "-s", outs["ndjson"], outs[fmt]]).returncode != 0:
                sys.exit("%s: job 1 writes other bytes than over the NDJSON" % fmt)
        print("check: on %d lines, job 1 writes the same bytes over every format" % a.lines)
        wall = {f: [] for f in FORMATS}
        cpu = {f: [] for f in FORMATS}
        for r in range(a.rounds):
            order = FORMATS[r % len(FORMATS):] + FORMATS[:r % len(FORMATS)]
            for fmt in order:
                w, c = compare.timed(cmd(fmt, paths[fmt]), outs[fmt])
                wall[fmt].append(w)
                cpu[fmt].append(c)
        med = statistics.median
        print("\n%d lines, %d rounds, medians; threads: %s" % (a.lines, a.rounds, a.threads or "default"))
        print("| format | MB | wall s | CPU s | speed vs NDJSON (wall) | (CPU) |")
        print("|---|---|---|---|---|---|")
        for fmt in FORMATS:
            mb = os.path.getsize(paths[fmt]) / 1e6
            print("| %s | %.0f | %.3f | %.2f | %.2f | %.2f |" % (
                fmt, mb, med(wall[fmt]), med(cpu[fmt]), med(wall["ndjson"]) / med(wall[fmt]),
                med(cpu["ndjson"]) / med(cpu[fmt])))
        if a.instructions:
            print("\ninstructions, 200,000 lines, --threads 1 (callgrind)")
            print("| format | instructions | NDJSON's / the format's |")
            print("|---|---|---|")
            counts = {}
            for fmt in FORMATS:
                small = os.path.join(work, "small." + fmt)
                if fmt == "ndjson":
                    head(paths["ndjson"], small, 200_000)
                else:
                    convert(paths["ndjson"], small, fmt, 200_000)
                counts[fmt] = compare.instructions(cmd(fmt, small, 1))
                print("| %s | %d | %.2f |" % (fmt, counts[fmt], counts["ndjson"] / counts[fmt]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def head(src, out, n):
    with open(src) as f, open(out, "w") as o:
        for i, line in enumerate(f):
            if i == n:
                break
            o.write(line)


if __name__ == "__main__":
    main()
