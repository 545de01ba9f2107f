#!/usr/bin/env python3
"""Compressed inputs (issue 14): job 1 of bench/run.py on .gz and .zst copies of the bench input,
logtide reading the compressed file itself against `zcat FILE | logtide` and
`zstdcat FILE | logtide` (same flags, default threads), with the plain file as a reference.
Rounds are interleaved; every output is checked byte-identical (cmp) to the plain file's.

Usage: bench/compressed.py [--build DIR] [--lines N] [--rounds R]
The copies are made once next to the input (gzip -6, zstd -3: the tools' defaults) and kept.
Prints a markdown table of medians, MB/s of decompressed input and peak RSS.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import JOBS, OUT_DIR, timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    logtide = os.path.abspath(os.path.join(a.build, "logtide"))
    gen = os.path.abspath(os.path.join(a.build, "logtide_gen"))
    work = "/tmp/logtide-bench"
    if os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free > 3 * a.lines * 200:
        work = "/dev/shm/logtide-bench"
    os.makedirs(work, exist_ok=True)
    plain = os.path.join(work, "logs-%d.ndjson" % a.lines)
    if not os.path.exists(plain):
        with open(plain, "w") as f:
            subprocess.run([gen, "--lines", str(a.lines), "--seed", "1"], stdout=f, check=True)
    gz, zst = plain + ".gz", plain + ".zst"
    for path, cmd in ((gz, ["gzip", "-6", "-n", "-c", plain]), (zst, ["zstd", "-q", "-3", "-c", plain])):
        if not os.path.exists(path):
            with open(path + ".tmp", "wb") as f:
                subprocess.run(cmd, stdout=f, check=True)
            os.rename(path + ".tmp", path)
    for p in (plain, gz, zst):
        subprocess.run(["cat", p], stdout=subprocess.DEVNULL)  # page cache
    mb = os.path.getsize(plain) / 1e6
    flags = " ".join("'%s'" % f for f in JOBS[1][1])
    lt = "%s -q %s" % (logtide, flags)
    cases = [
        ("logtide FILE (plain)", "%s %s" % (lt, plain)),
        ("logtide FILE.gz", "%s %s" % (lt, gz)),
        ("zcat FILE.gz | logtide", "zcat %s | %s" % (gz, lt)),
        ("logtide FILE.zst", "%s %s" % (lt, zst)),
        ("zstdcat FILE.zst | logtide", "zstdcat -q %s | %s" % (zst, lt)),
    ]
    ref = os.path.join(OUT_DIR, "logtide-bench-compressed-ref")
    got = os.path.join(OUT_DIR, "logtide-bench-compressed-out")
    runs = {}
    for r in range(a.rounds):
        for name, cmd in cases:
            secs, rss = timed(["bash", "-o", "pipefail", "-c", cmd], ref if r == 0 and name.endswith("(plain)") else got)
            runs.setdefault(name, []).append((secs, rss))
            if not name.endswith("(plain)") and subprocess.run(["cmp", "-s", ref, got]).returncode != 0:
                sys.exit("%s: the output differs from the plain file's" % name)
    print("job 1 (%s), %d lines (%.0f MB; gzip -6: %.0f MB, zstd -3: %.0f MB), %d rounds, %d cores\n" % (
        JOBS[1][0], a.lines, mb, os.path.getsize(gz) / 1e6, os.path.getsize(zst) / 1e6, a.rounds, os.cpu_count()))
    print("| input | median s | min s | max s | MB/s | peak RSS MB (logtide; a pipe: the shell's largest child) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, _ in cases:
        s = [x[0] for x in runs[name]]
        print("| %s | %.3f | %.3f | %.3f | %.0f | %.1f |" % (
            name.replace("|", "\\|"), statistics.median(s), min(s), max(s), mb / statistics.median(s),
            statistics.median(x[1] for x in runs[name])))
    med = {name: statistics.median(x[0] for x in runs[name]) for name, _ in cases}
    print("\n.gz read by logtide: %.2fx the time of zcat | logtide; .zst: %.2fx the time of zstdcat | logtide" % (
        med["logtide FILE.gz"] / med["zcat FILE.gz | logtide"],
        med["logtide FILE.zst"] / med["zstdcat FILE.zst | logtide"]))


if __name__ == "__main__":
    main()
