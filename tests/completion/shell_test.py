#!/usr/bin/env python3
"""Types into a real interactive bash or zsh (on a pseudo-terminal) and checks what completion
does to the command line: file names with spaces, directories with '/', the ':' in window specs,
values for flags. For zsh it also records the matches the completion offered (a compadd wrapper).

  shell_test.py bash|zsh LOGTIDE_BINARY ROOT

Exits 77 (skipped) when the shell is not installed.
"""
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import fcntl
import termios


class Shell:
    """An interactive shell on a pseudo-terminal."""

    def __init__(self, argv, env, setup):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        self.serial = 0
        for line in setup:
            self.send(line + "\r")
        self.sync()

    def send(self, text):
        os.write(self.fd, text.encode())

    def read_until(self, pattern, timeout=20.0):
        out, end = b"", time.time() + timeout
        while time.time() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                out += chunk
                text = out.decode(errors="replace").replace("\r", "")
                if re.search(pattern, text, re.M):
                    return text
        raise TimeoutError(f"no {pattern!r} in:\n{out.decode(errors='replace')}")

    def sync(self):
        """Waits until every line sent so far has run."""
        self.serial += 1
        self.send(f"echo SYNC''{self.serial}\r")
        self.read_until(rf"^SYNC{self.serial}$")

    def complete(self, typed, tabs=1):
        """Types `typed`, presses TAB, and returns the words of the line then (as the shell reads
        them: quotes and backslashes removed)."""
        self.send(typed)
        for _ in range(tabs):
            time.sleep(0.3)
            self.send("\t")
        time.sleep(0.6)
        # To the line's start, make it printf's arguments, run it.
        self.serial += 1
        self.send(f"\x01printf 'W''ORD<%s>\\n' \x05; echo SYNC''{self.serial}\r")
        text = self.read_until(rf"^SYNC{self.serial}$")
        return re.findall(r"^WORD<(.*)>$", text, re.M)

    def close(self):
        self.send("exit\r")
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def main():
    shell, binary, root = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    if shutil.which(shell) is None:
        print(f"skipped: {shell} is not installed")
        return 77
    scratch = tempfile.mkdtemp()
    for name in ("app.log", "my file.toml", "host.log", "logs/app.log"):
        path = os.path.join(scratch, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()
    capture = os.path.join(scratch, ".matches")
    env = {
        "HOME": scratch, "TERM": "dumb", "LANG": "C.UTF-8", "INPUTRC": "/dev/null",
        "PATH": os.path.dirname(binary) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
    }
    if shell == "bash":
        argv = ["bash", "--norc", "--noprofile", "-i"]
        setup = ["PS1='$ '", "set -o emacs", "bind 'set bell-style none'",
                 f"source '{root}/completions/logtide.bash'", f"cd '{scratch}'"]
    else:
        argv = ["zsh", "-f", "-i"]
        setup = ["PS1='$ '", "bindkey -e", "unsetopt beep", "setopt no_auto_remove_slash", f"fpath=('{root}/completions' $fpath)",
                 "autoload -Uz compinit && compinit -u -D",
                 # Records each match offered, one a line, in the capture file.
                 "compadd() { if (( ${@[(I)-[OAD]*]} )); then builtin compadd \"$@\"; return; fi;"
                 f" local -a m; builtin compadd -O m \"$@\"; print -rl -- $m >> '{capture}';"
                 " builtin compadd \"$@\"; }",
                 f"cd '{scratch}'"]
    sh = Shell(argv, env, setup)

    passed = failed = 0

    def check(what, typed, want, tabs=1):
        nonlocal passed, failed
        got = sh.complete(typed, tabs)
        if got == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {what}: typed {typed!r} + TAB, expected {want}, got {got}")

    def offered(what, typed, want):
        """zsh: the matches offered for `typed` are `want` (sorted)."""
        nonlocal passed, failed
        open(capture, "w").close()
        sh.send(typed + "\t")
        time.sleep(0.8)
        sh.send("\x05\x15")  # end of line, kill the line
        sh.sync()
        # As listed: without the quoting and the '/' of a directory (a suffix, not in the match).
        got = sorted(set(open(capture).read().replace("\\", "").split("\n")) - {""})
        if got == sorted(want):
            passed += 1
        else:
            failed += 1
            print(f"FAIL {what}: typed {typed!r} + TAB, expected matches {sorted(want)}, got {got}")

    l = "logtide"
    check("a name with a space", "logtide --config my", [l, "--config", "my file.toml"])
    check("an input with a space", "logtide --window tumbling:1m my", [l, "--window", "tumbling:1m", "my file.toml"])
    check("a directory gets '/'", "logtide --window tumbling:1m lo", [l, "--window", "tumbling:1m", "logs/"])
    check("into the directory", "logtide --window tumbling:1m lo", [l, "--window", "tumbling:1m", "logs/app.log"], tabs=2)
    for flag in ("-o", "--output", "--state", "--errors", "--late-output"):
        check(f"a file for {flag}", f"logtide {flag} lo", [l, flag, "logs/"])
    check("inspect's state file", "logtide inspect my", [l, "inspect", "my file.toml"])
    check("a window kind", "logtide --window tum", [l, "--window", "tumbling:"])
    check("the slide after a sliding size (':' break)", "logtide --window sliding:5m", [l, "--window", "sliding:5m:"])
    check("a unit after tumbling:1 (':' break)", "logtide --window tumbling:1m", [l, "--window", "tumbling:1m"])
    check("a mode", "logtide --emit u", [l, "--emit", "update"])
    check("a flag", "logtide --late-ou", [l, "--late-output"])
    check("no file names for a field", "logtide --by h", [l, "--by", "h"])
    check("an explain mode after '=' and ':'", "logtide --explain=sql:d", [l, "--explain=sql:duckdb"])
    check("an explain mode after '='", "logtide --explain=w", [l, "--explain=words"])
    if shell == "zsh":
        offered("window kinds", "logtide --window ", ["tumbling", "sliding", "session"])
        offered("units after tumbling:1", "logtide --window tumbling:1", ["ms", "s", "m", "h", "d"])
        offered("formats", "logtide --format ", ["ndjson", "csv", "table"])
        offered("time formats", "logtide --time-format epoch_", ["epoch_s", "epoch_ms", "epoch_us", "epoch_ns"])
        offered("aggregates", "logtide --agg count", ["count", "count(", "count_distinct("])
        offered("inspect or a file first", "logtide ", ["inspect", "app.log", "host.log", "logs", "my file.toml"])
        # Every flag in --help is offered.
        help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
        flags = sorted(set(f.strip(" ,") for f in re.findall(r"(?:^|[ ,])--?[a-z][a-z-]*", help_text, re.M)))
        open(capture, "w").close()
        sh.send("logtide -\t")
        time.sleep(1.0)
        sh.send("\x05\x15")
        sh.sync()
        got = set(open(capture).read().split("\n"))
        for flag in flags:
            if flag in got:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {flag} is in --help but is not offered")
    sh.close()
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
