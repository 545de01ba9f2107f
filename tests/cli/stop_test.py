#!/usr/bin/env python3
"""Stopping a live run (issue 15): SIGINT or SIGTERM while a producer is still writing into
logtide's standard input. The run exits 130 or 143 at once; the records of the windows that had
closed are written (and equal the batch run's), the open windows are not; with --state the
next run over the same stream gives exactly the batch result. With revisions (--emit update,
--early), a stop writes the open windows' changed keys as provisional records (issue 29), and
a resumed run continues their revisions with no repeat and no gap. A signal in the first
milliseconds stops the run as cleanly. A second signal ends the process at once.

Each signal is sent once the run is where the check needs it (its input read and processed,
or waiting to open a FIFO), never after a fixed time, except the early signals, sent on
purpose a few milliseconds after the start.
Usage: stop_test.py LOGTIDE [--busy]
"""
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from checks import Hog, wait_drained, wait_for, wchan

QUERY = ["--window", "tumbling:1s", "--by", "svc", "--agg", "count", "--agg", "sum(n)"]
BASE = 1_700_000_000_000  # ms


def lines(n):
    # Ten events per one-second window, two services.
    return [('{"ts":%d,"svc":"%s","n":%d}\n' % (BASE + i * 100, "ab"[i % 2], i)).encode() for i in range(n)]


def rec(start_s, svc, count, total, revision, phase, final, end_s=None):
    """The record of window [BASE + start_s, BASE + end_s) (a 1 s window by default) as the fields
    the checks compare: times as epoch milliseconds."""
    end_s = start_s + 1 if end_s is None else end_s
    return (round(BASE + start_s * 1000), round(BASE + end_s * 1000), svc, count, total, revision,
            phase, final)


def fields(line):
    r = json.loads(line)
    ms = lambda t: round(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000)
    return (ms(r["window_start"]), ms(r["window_end"]), r["svc"], r["count"], r["sum_n"],
            r["revision"], r["phase"], r["final"])


def run_until(binary, args, feed, stdout=subprocess.PIPE):
    """Runs logtide with `args`, writes the lines `feed` into its standard input, waits until
    it has read and processed them, and stops it by SIGTERM. Returns (exit status, stdout,
    stderr, whether the lines were processed)."""
    p = subprocess.Popen([binary] + args, stdin=subprocess.PIPE, stdout=stdout,
                         stderr=subprocess.PIPE)
    for line in feed:
        p.stdin.write(line)
        p.stdin.flush()
        time.sleep(0.002)
    drained = wait_drained(p, p.stdin.fileno())
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    return p.returncode, out or b"", err.decode(), drained


def stop_records(binary, all_lines, check):
    """A stop with revisions writes each open (window, key) changed since its last record, with
    the next revision, phase early and final false. The expectations are derived by hand from
    lines(): event i at i * 100 ms, service "ab"[i % 2], n = i; the watermark is the largest
    time read."""
    # After events 0..64 the watermark is 6.4 s: window [6, 7) is open, holding a: 60, 62, 64
    # (count 3, sum 186) and b: 61, 63 (count 2, sum 124).
    cases = [
        ("--emit update", QUERY + ["--emit", "update"],
         [rec(6, "a", 3, 186, 0, "early", False), rec(6, "b", 2, 124, 0, "early", False)]),
        # With lateness the windows [4, 5) and [5, 6) are closed but not final: they changed
        # since their on-time records in nothing, so a stop writes nothing for them.
        ("--emit update --lateness 1s", QUERY + ["--emit", "update", "--lateness", "1s"],
         [rec(6, "a", 3, 186, 0, "early", False), rec(6, "b", 2, 124, 0, "early", False)]),
        # The early time 6.3 s passed when event 63 was read (after adding it): a 60, 62 and b
        # 61, 63 were written then as revision 0; since then only a changed (event 64).
        ("--early 300ms", QUERY + ["--early", "300ms"],
         [rec(6, "a", 3, 186, 1, "early", False)]),
        # Sliding windows: [5, 7) holds a: 50, 52 .. 64 (8 events, sum 456) and b: 51 .. 63 (7,
        # sum 399); [6, 8) as the tumbling window above; [4, 6) is closed.
        ("sliding, --emit update",
         ["--window", "sliding:2s:1s", "--by", "svc", "--agg", "count", "--agg", "sum(n)",
          "--emit", "update"],
         [rec(5, "a", 8, 456, 0, "early", False, end_s=7),
          rec(5, "b", 7, 399, 0, "early", False, end_s=7),
          rec(6, "a", 3, 186, 0, "early", False, end_s=8),
          rec(6, "b", 2, 124, 0, "early", False, end_s=8)]),
        # Sessions with a gap of 1 s never close here: a holds the 33 even events 0..64 (sum
        # 2 * (0 + ... + 32) = 1056) from 0 s to 6.4 + 1 s, b the 32 odd ones (sum 32^2 = 1024)
        # from 0.1 s to 6.3 + 1 s.
        ("session, --emit update",
         ["--window", "session:1s", "--by", "svc", "--agg", "count", "--agg", "sum(n)",
          "--emit", "update"],
         [rec(0.1, "b", 32, 1024, 0, "early", False, end_s=7.3),
          rec(0, "a", 33, 1056, 0, "early", False, end_s=7.4)]),
    ]
    for what, args, expected in cases:
        what = "a stop with " + what
        status, out, err, drained = run_until(binary, args, all_lines[:65])
        check(what + ": the lines read and processed", drained)
        check(what + ": exit 143", status == 143, "got %d: %s" % (status, err))
        got = [fields(l) for l in out.decode().splitlines()]
        check(what + ": the open windows' changed keys are written, as derived",
              got[-len(expected):] == expected and
              all(r[6] != "early" or r[7] is False for r in got[:-len(expected)]) and
              not any(r[0] >= round(BASE + 6000) and r[6] != "early" for r in got),
              "got %s" % got[-4:])
        check(what + ": says so", "provisional records" in err, err)

    # --emit final: nothing is written at a stop, as before.
    status, out, err, _ = run_until(binary, QUERY, all_lines[:65])
    got = [json.loads(l) for l in out.decode().splitlines()]
    check("a stop with --emit final: the open window is not written",
          status == 143 and len(got) == 12 and all(r["window_end"] < "2023-11-14T22:13:27" for r in got)
          and "open ones are not" in err, "%d records, %s" % (len(got), err))

    # Stopped twice and resumed with --state: the revisions go on where the stops left them.
    # Run 1 stops after events 0..64 (as above: a 3/186 revision 1 at the stop). Run 2 reads
    # 65..67: event 66 moves the watermark to 6.6 s, an early time: a 60..66 (4/252) revision 2
    # and b 61..65 (3/189) revision 1; then event 67 (b, sum 256) is read, so its stop writes b
    # 4/256 revision 2 alone. Run 3 reads the rest: at 6.9 s (after event 69) a 5/320 revision 3
    # and b 5/325 revision 3, at 7 s both on time, revision 4, final.
    window6 = [
        rec(6, "a", 2, 122, 0, "early", False), rec(6, "b", 2, 124, 0, "early", False),
        rec(6, "a", 3, 186, 1, "early", False),
        rec(6, "a", 4, 252, 2, "early", False), rec(6, "b", 3, 189, 1, "early", False),
        rec(6, "b", 4, 256, 2, "early", False),
        rec(6, "a", 5, 320, 3, "early", False), rec(6, "b", 5, 325, 3, "early", False),
        rec(6, "a", 5, 320, 4, "on_time", True), rec(6, "b", 5, 325, 4, "on_time", True),
    ]
    early = QUERY + ["--early", "300ms"]
    # Update mode: run 1 writes a 3/186 and b 2/124 as revision 0, run 2 (65..67) b 4/256 as
    # revision 1 (a changed with event 66, but the 6.6 s early time is not a thing in update
    # mode without --early: a 4/252 is written by run 2's stop too, revision 1), run 3 both on
    # time at 7 s: a 5/320 and b 5/325, revision 2, final.
    window6_update = [
        rec(6, "a", 3, 186, 0, "early", False), rec(6, "b", 2, 124, 0, "early", False),
        rec(6, "a", 4, 252, 1, "early", False), rec(6, "b", 4, 256, 1, "early", False),
        rec(6, "a", 5, 320, 2, "on_time", True), rec(6, "b", 5, 325, 2, "on_time", True),
    ]
    update = QUERY + ["--emit", "update"]
    for what, args, expected in (("--early 300ms", early, window6),
                                 ("--emit update", update, window6_update)):
        what = "stopped twice with --state and " + what
        for f in ("s.db", "out.ndjson"):
            if os.path.exists(f):
                os.remove(f)
        job = ["-q"] + args + ["--state", "s.db", "-o", "out.ndjson", "-"]
        s1 = run_until(binary, job, all_lines[:65], stdout=subprocess.DEVNULL)
        s2 = run_until(binary, job, all_lines[:68], stdout=subprocess.DEVNULL)
        check(what + ": both runs stopped after their lines (exit 143)",
              s1[0] == 143 and s2[0] == 143 and s1[3] and s2[3], "%s %s" % (s1[2], s2[2]))
        r = subprocess.run([binary] + job, input=b"".join(all_lines), capture_output=True)
        check(what + ": the last run ends well", r.returncode == 0, r.stderr.decode())
        got = [fields(l) for l in open("out.ndjson").read().splitlines()]
        check(what + ": window [6, 7)'s records, as derived",
              [g for g in got if g[0] == round(BASE + 6000)] == expected,
              "got %s" % [g for g in got if g[0] == round(BASE + 6000)])
        # Every (window, key): revisions 0, 1, 2 ... in output order, the last one final, and
        # it equals the uninterrupted run's last record.
        whole = subprocess.run([binary, "-q"] + args + ["all.ndjson"], capture_output=True,
                               check=True).stdout.decode().splitlines()
        def table(records):
            revs, last = {}, {}
            for g in records:
                revs.setdefault(g[:3], []).append(g[5])
                last[g[:3]] = g
            return revs, {k: v[:5] + v[6:] for k, v in last.items()}
        revs, last = table(got)
        _, whole_last = table([fields(l) for l in whole])
        check(what + ": each window and key's revisions go 0, 1, 2 ... with no repeat or gap",
              all(v == list(range(len(v))) for v in revs.values()),
              str([(k, v) for k, v in revs.items() if v != list(range(len(v)))][:3]))
        check(what + ": and end as the uninterrupted run's",
              last == whole_last and all(v[-1] for v in last.values()))

    # Sessions, stopped twice and resumed: run 1 as above; run 2 reads 65..67, a's session
    # grows by 66 (34 events, sum 1122, to 7.6 s), b's by 65 and 67 (34, 1156, to 7.7 s), and
    # its stop writes both as revision 1; run 3 reads the rest: at the end of the input each
    # session holds its 100 events (a: sum 2 * (0 + ... + 99) = 9900, to 19.8 + 1 s; b: the odd
    # numbers to 199, sum 100^2 = 10000, to 19.9 + 1 s), revision 2, on time and final.
    sessions = ["--window", "session:1s", "--by", "svc", "--agg", "count", "--agg", "sum(n)",
                "--emit", "update"]
    expected = [
        rec(0.1, "b", 32, 1024, 0, "early", False, end_s=7.3),
        rec(0, "a", 33, 1056, 0, "early", False, end_s=7.4),
        rec(0, "a", 34, 1122, 1, "early", False, end_s=7.6),
        rec(0.1, "b", 34, 1156, 1, "early", False, end_s=7.7),
        rec(0, "a", 100, 9900, 2, "on_time", True, end_s=20.8),
        rec(0.1, "b", 100, 10000, 2, "on_time", True, end_s=20.9),
    ]
    for f in ("s.db", "out.ndjson"):
        if os.path.exists(f):
            os.remove(f)
    job = ["-q"] + sessions + ["--state", "s.db", "-o", "out.ndjson", "-"]
    s1 = run_until(binary, job, all_lines[:65], stdout=subprocess.DEVNULL)
    s2 = run_until(binary, job, all_lines[:68], stdout=subprocess.DEVNULL)
    r = subprocess.run([binary] + job, input=b"".join(all_lines), capture_output=True)
    got = [fields(l) for l in open("out.ndjson").read().splitlines()]
    check("sessions stopped twice with --state: the records, as derived",
          s1[0] == 143 and s2[0] == 143 and r.returncode == 0 and got == expected,
          "%s %s %s got %s" % (s1[2], s2[2], r.stderr.decode(), got))


def main():
    binary = os.path.abspath(sys.argv[1])
    hog = Hog() if "--busy" in sys.argv[2:] else None
    work = tempfile.mkdtemp(prefix="logtide-stop-")
    os.chdir(work)
    failures = []
    all_lines = lines(200)
    with open("all.ndjson", "wb") as f:
        f.writelines(all_lines)
    batch = subprocess.run([binary, "-q"] + QUERY + ["all.ndjson"], capture_output=True, check=True).stdout
    batch_records = batch.decode().splitlines()

    def check(what, ok, detail=""):
        print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " " + detail))
        if not ok:
            failures.append(what)

    for sig in (signal.SIGINT, signal.SIGTERM):
        for threads in ("1", "2"):
            what = "%s, --threads %s, no state" % (signal.Signals(sig).name, threads)
            p = subprocess.Popen([binary, "--threads", threads] + QUERY, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for line in all_lines[:65]:  # windows 0-5 closed by the event at 6.0 s, window 6 open
                p.stdin.write(line)
                p.stdin.flush()
                time.sleep(0.005)
            check(what + ": the lines read and processed", wait_drained(p, p.stdin.fileno()))
            t0 = time.monotonic()
            p.send_signal(sig)
            out, err = p.communicate(timeout=10)
            took = time.monotonic() - t0
            records = out.decode().splitlines()
            check(what + ": exit %d" % (128 + sig), p.returncode == 128 + sig, "got %d" % p.returncode)
            check(what + ": stopped within 2 s", took < 2, "%.2f s" % took)
            # Windows [0,1) .. [5,6) of both services are closed: 12 records, as in the batch run.
            check(what + ": the 12 closed windows are written, as in the batch run",
                  records == batch_records[:12], "got %d records" % len(records))
            check(what + ": says what it did", b"stopped by signal" in err, err.decode())

    # With --state: stopped mid-stream, then the whole stream again gives the batch result.
    for sig in (signal.SIGINT, signal.SIGTERM):
        what = "%s with --state" % signal.Signals(sig).name
        for f in ("s.db", "out.ndjson"):
            if os.path.exists(f):
                os.remove(f)
        args = [binary, "-q"] + QUERY + ["--state", "s.db", "-o", "out.ndjson", "-"]
        p = subprocess.Popen(args, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        for line in all_lines[:120]:
            p.stdin.write(line)
            p.stdin.flush()
            time.sleep(0.002)
        check(what + ": the lines read and processed", wait_drained(p, p.stdin.fileno()))
        p.send_signal(sig)
        _, err = p.communicate(timeout=10)
        check(what + ": exit %d" % (128 + sig), p.returncode == 128 + sig, err.decode())
        r = subprocess.run(args, input=b"".join(all_lines), capture_output=True)
        check(what + ": the resumed run ends well", r.returncode == 0, r.stderr.decode())
        check(what + ": and the output is the batch run's", open("out.ndjson", "rb").read() == batch)

    # A signal in the first milliseconds: a clean stop, nothing written; with --state the job
    # then runs to the batch result.
    for delay in (0.0, 0.002, 0.01):
        for f in ("s.db", "out.ndjson"):
            if os.path.exists(f):
                os.remove(f)
        args = [binary, "-q"] + QUERY + ["--state", "s.db", "-o", "out.ndjson", "-"]
        p = subprocess.Popen(args, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=10)
        what = "SIGTERM %.0f ms after start" % (delay * 1000)
        # The signal may come before the handler is installed (the process then dies of it) or
        # after: either way no crash, and the state, if made, resumes to the batch result.
        check(what + ": exit 143 or killed by SIGTERM", p.returncode in (143, -signal.SIGTERM),
              "exit %d: %s" % (p.returncode, err.decode()))
        r = subprocess.run(args, input=b"".join(all_lines), capture_output=True)
        check(what + ": the next run ends well", r.returncode == 0, r.stderr.decode())
        check(what + ": with the batch result", open("out.ndjson", "rb").read() == batch)

    # A second signal ends the process at once: two signals delivered together (the process
    # stopped while they are sent) kill it by the second one, rather than a clean exit.
    p = subprocess.Popen([binary, "-q"] + QUERY, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(all_lines[0])
    p.stdin.flush()
    check("two signals: the first line read (the handlers are in place)",
          wait_drained(p, p.stdin.fileno()))
    p.send_signal(signal.SIGSTOP)
    p.send_signal(signal.SIGINT)
    p.send_signal(signal.SIGTERM)
    p.send_signal(signal.SIGCONT)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    check("a second signal ends the process by that signal (got %d)" % p.returncode,
          p.returncode in (-signal.SIGINT, -signal.SIGTERM))
    p.stdin.close()

    # A FIFO no writer opened yet: the open waits, and a signal then is a stop too.
    os.mkfifo("fifo")
    p = subprocess.Popen([binary, "--window", "tumbling:1s", "fifo"], stderr=subprocess.PIPE)
    check("a FIFO with no writer: the run waits in its open()",
          wait_for(lambda: wchan(p.pid) == "wait_for_partner"), wchan(p.pid))
    p.send_signal(signal.SIGINT)
    try:
        err = p.communicate(timeout=10)[1].decode()
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1].decode()
    check("SIGINT while opening a FIFO with no writer: exit 130 (got %d)" % p.returncode,
          p.returncode == 130, err)

    stop_records(binary, all_lines, check)

    if hog is not None:
        hog.stop()
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
