#!/usr/bin/env python3
"""Differential test of calendar windows (--tz) and local times against tests/oracle/reference.py
(Python's zoneinfo): random events around the 2024 daylight-saving changes of several zones,
some written as local times with no offset (a few of them in a skipped hour: bad lines), over
every calendar size kind (days, weeks, months, wall-clock hours, a grid from local midnight).
The records must be those of reference.calendar_window; and a run held over a prefix with --state
(--hold) and resumed must write the same bytes.

Usage: tz_differential_test.py LOGTIDE_BINARY FIRST_SEED COUNT
"""
import datetime
import os
import random
import subprocess
import sys
import tempfile
import zoneinfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

NS = reference.NS
ZONES = ["Europe/Berlin", "America/Santiago", "Australia/Lord_Howe", "Asia/Kolkata", "America/New_York",
         "Pacific/Chatham", "Europe/London", "UTC"]
# (spelling, model unit, model n, how far around a change events spread, in seconds)
SIZES = [("1d", "d", 1, 3 * 86400), ("2d", "d", 2, 6 * 86400), ("6h", "wall", 6 * 3600, 86400),
         ("3h", "wall", 3 * 3600, 86400), ("90m", "wall", 5400, 86400), ("1h", "grid", 3600 * NS, 36000),
         ("30m", "grid", 1800 * NS, 36000), ("15m", "grid", 900 * NS, 20000), ("1w", "w", 1, 20 * 86400),
         ("1mo", "mo", 1, 70 * 86400)]
UTC = datetime.timezone.utc


def changes(zone):
    """The instants (seconds) of 2024 at which the zone's UTC offset changes, found hour by hour
    and then to the second."""
    z = zoneinfo.ZoneInfo(zone)
    off = lambda u: datetime.datetime.fromtimestamp(u, UTC).astimezone(z).utcoffset()
    start = int(datetime.datetime(2024, 1, 1, tzinfo=UTC).timestamp())
    out = []
    for h in range(366 * 24):
        a, b = start + h * 3600, start + (h + 1) * 3600
        if off(a) != off(b):
            while b - a > 1:
                m = (a + b) // 2
                a, b = (m, b) if off(m) == off(a) else (a, m)
            out.append(b)
    return out or [start + 180 * 86400]


def local_text(c):
    return c.strftime("%Y-%m-%d %H:%M:%S")


def local_instant(c, z):
    """The instant logtide reads for local time c: the earlier of a repeated one, None if skipped."""
    u = int(c.replace(tzinfo=z, fold=0).timestamp())
    u1 = int(c.replace(tzinfo=z, fold=1).timestamp())
    u = min(u, u1)
    return u if reference.local_of(u, z) == c else None


def run_case(binary, seed, workdir):
    rng = random.Random(seed)
    zone = rng.choice(ZONES)
    z = zoneinfo.ZoneInfo(zone)
    spelling, unit, n, spread = rng.choice(SIZES)
    # Half the cases with an offset (issue 31, item 3): the model moves every local bound by
    # it; the command spells it as given, or a whole period below it (negative), which must be
    # the same grid. Months keep their offset as written, within (-28d, 28d).
    offset, written = 0, 0
    if rng.random() < 0.5:
        period = {"d": n * 86400, "w": 7 * n * 86400, "wall": n, "grid": 86400, "mo": None}[unit]
        if period is None:
            offset = written = rng.choice([-6 * 3600, 14 * 86400, 27 * 86400 + 3599, -27 * 86400, 1800])
        else:
            offset = rng.choice([1, 60, 1800, 3600, 6 * 3600, 86400 - 1, period // 3, period - 1]) % period
            written = offset - period if rng.random() < 0.5 else offset
    window = "tumbling:" + spelling
    if written != 0:
        window += ":offset=%s%ds" % ("-" if written < 0 else "", abs(written))
    center = rng.choice(changes(zone))
    events = []  # (instant seconds or None for a bad line, line text)
    for _ in range(rng.randrange(5, 200)):
        u = center + rng.randrange(-spread, spread)
        r = rng.random()
        if r < 0.6:
            events.append((u, '{"ts":"%s"}' % reference.rfc3339(u * NS)))
        else:
            # a local time: the wall clock at u, or near it (which may be skipped, or repeated)
            c = reference.local_of(u, z) + datetime.timedelta(seconds=rng.choice([0, 0, 0, 1800, -1800, 3600]))
            events.append((local_instant(c, z), '{"ts":"%s"}' % local_text(c)))
    good = sorted((e for e in events if e[0] is not None), key=lambda e: e[0])
    bad = [e for e in events if e[0] is None]
    lines = [e[1] for e in good]
    for e in bad:  # bad lines anywhere
        lines.insert(rng.randrange(0, len(lines) + 1), e[1])
    counts = {}
    for u, _ in good:
        w = reference.calendar_window(u * NS, z, unit, n, offset)
        counts[w] = counts.get(w, 0) + 1
    expected = "".join('{"window_start":"%s","window_end":"%s","count":%d}\n' % (
        reference.rfc3339(s), reference.rfc3339(e), c) for (s, e), c in sorted(counts.items()))
    path = os.path.join(workdir, "in.ndjson")
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    args = [binary, "-q", "--window", window, "--tz", zone, path]
    got = subprocess.run(args, capture_output=True, text=True)
    if got.returncode != 0 or got.stdout != expected:
        return "seed %d: %s\n--- expected\n%s--- got (exit %d)\n%s%s" % (
            seed, " ".join(args), expected, got.returncode, got.stdout, got.stderr)
    # Held over a prefix, resumed over the rest: the same bytes.
    cut = rng.randrange(0, len(lines) + 1)
    a, b = os.path.join(workdir, "a.ndjson"), os.path.join(workdir, "b.ndjson")
    with open(a, "w") as f:
        f.write("".join(line + "\n" for line in lines[:cut]))
    with open(b, "w") as f:
        f.write("".join(line + "\n" for line in lines[cut:]))
    state, out = os.path.join(workdir, "s.db"), os.path.join(workdir, "out.ndjson")
    for p in (state, out):
        if os.path.exists(p):
            os.remove(p)
    base = [binary, "-q", "--window", window, "--tz", zone, "--state", state, "-o", out]
    first = subprocess.run(base + ["--hold", a], capture_output=True, text=True)
    second = subprocess.run(base + [b], capture_output=True, text=True)
    resumed = open(out).read() if os.path.exists(out) else ""
    if first.returncode != 0 or second.returncode != 0 or resumed != expected:
        return "seed %d (held over %d lines, resumed): %s\n--- expected\n%s--- got\n%s%s%s" % (
            seed, cut, " ".join(base), expected, resumed, first.stderr, second.stderr)
    return None


def main():
    binary, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        for seed in range(first, first + count):
            problem = run_case(binary, seed, workdir)
            if problem:
                failed += 1
                print(problem)
            else:
                passed += 1
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
