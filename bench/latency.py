#!/usr/bin/env python3
"""Latency of records on a live input (issue 15).

A producer thread writes NDJSON events at a steady rate (default 1,000 events/s, 10 events
every 10 ms, each batch one write) into a pipe that is the standard input of
`logtide --window tumbling:1s --delay 100ms --by svc`; the event time `ts` (epoch ms) is the
producer's wall clock when the batch is written. A reader thread reads logtide's standard
output, a pipe, as it comes and notes when each record arrives (time.monotonic).

A window [s, e) can fire first when the producer writes the first event with ts >= e + delay
(the watermark is the largest event time minus the delay). A record's latency is the time it
arrived minus the time that event's write returned (same process, same clock). The windows
still open when the producer stops fire at the end of input: they are checked but not timed.

Correctness, cheaply: every record's count must equal the number of events the producer sent
for its window and key (exactly: timestamps never decrease, so nothing is late), and every
(window, key) sent must have its record.

--extra FLAGS adds logtide flags (split as a shell would) to both runs, and --window-ms the
window's size. With `--early-every DUR` among them, the provisional records
(`"phase":"early"`) are timed apart: logtide writes them at each multiple of DUR since the
epoch on the real-time clock, so a provisional record's latency is its arrival (time.time(),
the same clock) minus the last multiple of DUR at or before it. Two provisional records of one
window and key given the same multiple would mean one was later than DUR, and stop the script.
Each window and key must then have exactly one record that is not provisional, with the
count sent; its provisional ones must have counts that never decrease and never pass what was
sent, and revisions 0, 1, 2 ... in order.

Usage: bench/latency.py [--build DIR] [--duration S] [--rate N] [--batch-ms MS] [--services K]
                        [--window-ms MS] [--extra FLAGS]
Runs logtide with its default threads, then with --threads 1, and prints a markdown table.
Exits non-zero only when something is wrong (no records, a record that matches nothing, a
wrong count, logtide failing); never because of a latency figure.
"""
import argparse
import datetime
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time

DELAY_MS = 100


def percentile(xs, p):
    """Returns the p-th percentile of xs (nearest rank)."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


def duration_ms(text):
    """Returns the milliseconds of a duration as --early-every takes it (500ms, 1s, 2m, 1h)."""
    m = re.fullmatch(r"(\d+)(ms|s|m|h)", text)
    if not m:
        sys.exit("--extra: cannot read the duration %r (bench/latency.py knows ms, s, m, h)" % text)
    return int(m.group(1)) * {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}[m.group(2)]


def parse_window_start(text):
    """Returns epoch ms of an RFC 3339 time as logtide writes it ("...Z", maybe fractional)."""
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(t.timestamp() * 1000)


def run_once(logtide, extra, a):
    WINDOW_MS = a.window_ms
    extra = shlex.split(a.extra) + extra
    every = duration_ms(extra[extra.index("--early-every") + 1]) if "--early-every" in extra else None
    cmd = [logtide, "-q", "--window", "tumbling:%dms" % WINDOW_MS, "--delay", "%dms" % DELAY_MS, "--by", "svc",
           "--time-format", "epoch_ms"] + extra
    services = ["svc%d" % i for i in range(a.services)]
    per_batch = max(1, round(a.rate * a.batch_ms / 1000))
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, bufsize=0)
    arrivals = []  # (monotonic time, real time, line bytes)

    def reader():
        fd, pending = proc.stdout.fileno(), b""
        while True:
            chunk = os.read(fd, 1 << 16)
            now, real = time.monotonic(), time.time()
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            arrivals.extend((now, real, line) for line in lines)
        if pending:
            arrivals.append((time.monotonic(), time.time(), pending))

    rt = threading.Thread(target=reader, daemon=True)
    rt.start()

    batches = []  # (monotonic time the write returned, ts of the batch's last event)
    sent = {}  # (window start ms, svc) -> events
    fd = proc.stdin.fileno()
    n_batches = int(a.duration * 1000 / a.batch_ms)
    start = time.monotonic()
    last_ts = 0
    i = 0
    for b in range(n_batches):
        wake = start + b * a.batch_ms / 1000
        pause = wake - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        ts = max(last_ts, int(time.time() * 1000))  # wall clock, never decreasing
        last_ts = ts
        parts = []
        for _ in range(per_batch):
            svc = services[i % len(services)]
            i += 1
            parts.append('{"ts":%d,"svc":"%s","n":%d}\n' % (ts, svc, i))
            key = (ts - ts % WINDOW_MS, svc)
            sent[key] = sent.get(key, 0) + 1
        data = "".join(parts).encode()
        while data:
            k = os.write(fd, data)
            data = data[k:]
        batches.append((time.monotonic(), ts))
    produced_for = time.monotonic() - start
    proc.stdin.close()
    rc = proc.wait()
    rt.join()
    err.seek(0)
    stderr = err.read().decode(errors="replace")
    if rc != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), rc, stderr))

    # When each window could fire: the first batch with ts >= window end + delay.
    fire_at = {}
    ends = sorted({w + WINDOW_MS for w, _ in sent})
    j = 0
    for end in ends:
        while j < len(batches) and batches[j][1] < end + DELAY_MS:
            j += 1
        if j < len(batches):
            fire_at[end] = batches[j][0]

    latencies, seen, at_end = [], set(), 0
    early, last_early = [], {}  # provisional latencies; (window, key) -> (revision, count, tick)
    for t, real, line in arrivals:
        rec = json.loads(line)
        w = parse_window_start(rec["window_start"])
        key = (w, rec["svc"])
        if key not in sent:
            sys.exit("record for a window and key the producer never sent: %s" % line.decode())
        revision = rec.get("revision", 0)
        before = last_early.get(key, (-1, 0, None))
        if revision != before[0] + 1:
            sys.exit("revision %d after %d: %s" % (revision, before[0], line.decode()))
        if rec.get("phase") == "early":
            if every is None:
                sys.exit("a provisional record without --early-every: %s" % line.decode())
            if not before[1] <= rec["count"] <= sent[key]:
                sys.exit("provisional count %d after %d, %d sent: %s" % (
                    rec["count"], before[1], sent[key], line.decode()))
            tick = int(real * 1000) // every * every
            if tick == before[2]:
                sys.exit("two provisional records of one window and key after one multiple of %d ms "
                         "(one came more than that late): %s" % (every, line.decode()))
            last_early[key] = (revision, rec["count"], tick)
            early.append(real * 1000 - tick)
            continue
        if key in seen:
            sys.exit("two records for one window and key: %s" % line.decode())
        seen.add(key)
        if rec["count"] != sent[key]:
            sys.exit("count %d, %d sent: %s" % (rec["count"], sent[key], line.decode()))
        if w + WINDOW_MS in fire_at:
            latencies.append((t - fire_at[w + WINDOW_MS]) * 1000)
        else:
            at_end += 1
    if not latencies:
        sys.exit("%s: no record fired before the end of input" % " ".join(cmd))
    missing = set(sent) - seen
    if missing:
        sys.exit("%d (window, key) pairs sent have no record, e.g. %r" % (len(missing), sorted(missing)[0]))
    if every is not None and not early:
        sys.exit("%s: no provisional record" % " ".join(cmd))
    r = {
        "events": i, "rate": i / produced_for, "records": len(arrivals), "timed": len(latencies),
        "at_end": at_end, "median": statistics.median(latencies), "p99": percentile(latencies, 99),
        "max": max(latencies), "early": len(early),
    }
    if early:
        r.update(early_median=statistics.median(early), early_p99=percentile(early, 99), early_max=max(early))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of producing (default 20)")
    ap.add_argument("--rate", type=int, default=1000, help="events per second (default 1000)")
    ap.add_argument("--batch-ms", type=float, default=10.0, help="one write every MS ms (default 10)")
    ap.add_argument("--services", type=int, default=4, help="distinct svc values (default 4)")
    ap.add_argument("--window-ms", type=int, default=1000, help="tumbling window size (default 1000)")
    ap.add_argument("--extra", default="", help="more logtide flags, e.g. '--early-every 1s'")
    a = ap.parse_args()
    logtide = os.path.abspath(os.path.join(a.build, "logtide"))
    configs = [("logtide (default threads)", []), ("logtide --threads 1", ["--threads", "1"])]
    print("logtide -q --window tumbling:%dms --delay %dms --by svc --time-format epoch_ms%s, "
          "%d events/s in writes of %g ms, %d services, %g s each, %d cores\n" % (
              a.window_ms, DELAY_MS, " " + a.extra if a.extra else "", a.rate, a.batch_ms,
              a.services, a.duration, os.cpu_count()))
    early = "--early-every" in shlex.split(a.extra)
    print("| run | events | events/s | records (timed) | median ms | p99 ms | max ms |"
          + (" provisional | median ms | p99 ms | max ms |" if early else ""))
    print("|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|---:|" if early else ""))
    for name, extra in configs:
        r = run_once(logtide, extra, a)
        print("| %s | %d | %.0f | %d (%d) | %.1f | %.1f | %.1f |" % (
            name, r["events"], r["rate"], r["records"], r["timed"], r["median"], r["p99"], r["max"])
            + (" %d | %.1f | %.1f | %.1f |" % (r["early"], r["early_median"], r["early_p99"], r["early_max"])
               if early else ""), flush=True)
    print("\nLatency: a record's arrival minus the write of the first event at or past its window's "
          "end + delay; records fired at the end of input are checked, not timed. Goal (issue 15): "
          "p99 under 150 ms.")
    if early:
        print("Provisional records (\"phase\":\"early\"): arrival minus the multiple of the "
              "--early-every period (real-time clock) it was written for. Goal (issue 29): p99 under 150 ms.")


if __name__ == "__main__":
    main()
