#!/usr/bin/env python3
"""Stopping a live run (issue 15): SIGINT or SIGTERM while a producer is still writing into
logtide's standard input. The run exits 130 or 143 at once; the records of the windows that had
closed are written (and equal the batch run's), the open windows are not; with --state the
next run over the same stream gives exactly the batch result. A signal in the first
milliseconds stops the run as cleanly. A second signal ends the process at once.

Each signal is sent once the run is where the check needs it (its input read and processed,
or waiting to open a FIFO), never after a fixed time, except the early signals, sent on
purpose a few milliseconds after the start.
Usage: stop_test.py LOGTIDE [--busy]
"""
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

    if hog is not None:
        hog.stop()
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
