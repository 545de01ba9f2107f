"""What the real-process tests in tests/cli share: a scratch folder to run in, and checks that
print 'ok: ...' or 'FAIL: ...' and are counted."""
import os
import sys
import tempfile


class Checks:
    """check = Checks("logtide-x-"): the binary is sys.argv[1] (check.binary), the current
    folder a new scratch one; check(what, ok, detail) records one check; check.done() prints
    the count and exits 1 when one failed."""

    def __init__(self, prefix):
        self.binary = os.path.abspath(sys.argv[1])
        os.chdir(tempfile.mkdtemp(prefix=prefix))
        self.failures = []

    def __call__(self, what, ok, detail=""):
        print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " " + detail))
        if not ok:
            self.failures.append(what)

    def done(self):
        print("%d failed" % len(self.failures))
        sys.exit(1 if self.failures else 0)
