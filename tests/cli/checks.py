"""What the real-process tests in tests/cli share: a scratch folder to run in, checks that
print 'ok: ...' or 'FAIL: ...' and are counted, waiting for a condition instead of a fixed
time, and a CPU hog to run them on a busy machine."""
import atexit
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
import time

# How long a wait for a condition may take before the check fails: long, since it only bounds
# a test that is going wrong; a passing one waits as long as the condition takes.
PATIENCE_S = 30.0


def wait_for(condition, timeout=PATIENCE_S):
    """Calls condition() until it is true (returns True) or `timeout` seconds passed (False)."""
    end = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.005)


def file_lines(path):
    """The number of whole lines in the file at `path` (0 when there is none)."""
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


class Collected:
    """The bytes a process writes to one of its pipes, read on a thread as they come:
    text() so far, wait_text(s) until s appeared, close() at the end (joins the thread)."""

    def __init__(self, pipe):
        self.pipe = pipe
        self.data = b""
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self._read)
        self.t.start()

    def _read(self):
        while True:
            chunk = os.read(self.pipe.fileno(), 1 << 16)
            if not chunk:
                return
            with self.lock:
                self.data += chunk

    def text(self):
        with self.lock:
            return self.data.decode(errors="replace")

    def wait_text(self, s, timeout=PATIENCE_S):
        return wait_for(lambda: s in self.text(), timeout)

    def close(self):
        self.t.join()
        self.pipe.close()
        return self.text()


def process_state(pid):
    """The state letter of process `pid` in /proc (R running, S sleeping, ...), '' when gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return ""


def wait_blocked(pid, timeout=PATIENCE_S):
    """Waits until process `pid` sleeps (waits for input) with every thread."""
    def blocked():
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except FileNotFoundError:
            return False
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] not in ("S", "D"):
                        return False
            except FileNotFoundError:
                pass
        return True
    return wait_for(blocked, timeout)


def unread(fd):
    """The bytes written into the pipe `fd` (either end) that its reader has not read yet."""
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")


def wait_drained(p, fd, timeout=PATIENCE_S):
    """Waits until process `p` read everything written into its input pipe `fd` and waits for
    more with every thread: what it read is processed."""
    return wait_for(lambda: unread(fd) == 0, timeout) and wait_blocked(p.pid, timeout)


def wchan(pid):
    """Where in the kernel process `pid` waits ('' when it runs or is gone)."""
    try:
        with open("/proc/%d/wchan" % pid) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


class Hog:
    """Busy loops on every core, started by the test and ended (by their ids) at exit: the
    test's checks must hold on a busy machine."""

    def __init__(self, cores=None):
        n = cores or os.cpu_count() or 2
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
        atexit.register(self.stop)
        print("hog: %d busy loops (pids %s)" % (n, " ".join(str(p.pid) for p in self.procs)))

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        self.procs = []


class Checks:
    """check = Checks("logtide-x-"): the binary is sys.argv[1] (check.binary); a second argument
    "--busy" runs the test beside a Hog; the current folder a new scratch one, removed at exit;
    check(what, ok, detail) records one check; check.done() prints the count and exits 1 when one
    failed."""

    def __init__(self, prefix):
        self.binary = os.path.abspath(sys.argv[1])
        self.hog = Hog() if "--busy" in sys.argv[2:] else None
        scratch = tempfile.mkdtemp(prefix=prefix)
        os.chdir(scratch)
        atexit.register(shutil.rmtree, scratch, True)
        self.failures = []

    def __call__(self, what, ok, detail=""):
        print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " " + detail))
        if not ok:
            self.failures.append(what)

    def done(self):
        if self.hog is not None:
            self.hog.stop()
        print("%d failed" % len(self.failures))
        sys.exit(1 if self.failures else 0)
