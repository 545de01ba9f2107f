#!/usr/bin/env python3
"""The consumer rule of update mode (issue 29 item 5), run as the man page writes it.

  consumer_test.py LOGTIDE LOGTIDE_GEN REPO

The sqlite3, DuckDB and jq recipes are read from man/logtide.1 (the .EX block after each
'.\\" recipe: NAME' line), not copied here. For a tumbling, a sliding and a session query in
update mode with --early and --lateness, over a generated input with disorder and late events:
the run is killed (SIGKILL) at random moments at least 3 times and resumed from --state until it
ends; after every kill the sqlite3 and DuckDB recipes are applied to the output written so far
(its complete lines), into one database each, as a consumer reading a growing file would, and
once more to the whole output at the end; the sqlite3 recipe also to the output's lines in
reverse order, into a fresh database; the jq recipe to the whole output. Each table must be
exactly the records of the same query with --emit final (and no --early), as values; for
sessions after the man page's deletion of the rows whose final is false. The resumed run's
output must also be byte-identical to an uninterrupted one. So that these checks can fail, the
tumbling case also shows that the recipes' guards matter on this output: without QUALIFY the
DuckDB recipe, and without its revision test the sqlite3 recipe over reversed lines, leave
other tables.

sqlite3 is the Debian package; DuckDB is the npm package tests/sql pins (installed as there;
without node or the registry the test exits 77, skipped).
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sql"))
sys.path.insert(0, os.path.join(HERE, "..", "docs"))
import sql_test  # noqa: E402  (install: the pinned DuckDB package)
from doc_test import unroff  # noqa: E402

COMMON = ["--by", "service", "--agg", "count", "--agg", "sum(bytes)"]
QUERIES = [
    # (name, window and timing flags of both runs, flags of the update run only)
    ("tumbling", ["--window", "tumbling:10s", "--lateness", "5s", "--delay", "1s"], ["--early", "3s"]),
    ("sliding", ["--window", "sliding:20s:10s", "--lateness", "4s", "--delay", "1s"], ["--early", "3s"]),
    ("session", ["--window", "session:30ms", "--lateness", "200ms", "--delay", "50ms"], ["--early", "10ms"]),
]
COLUMNS = ["window_start", "window_end", "service", "count", "sum_bytes"]


def recipes(repo):
    """Returns {name: text} of the man page's recipe blocks."""
    lines = open(os.path.join(repo, "man", "logtide.1"), encoding="utf-8").read().split("\n")
    found = {}
    for i, line in enumerate(lines):
        m = re.match(r'\.\\" recipe: (\w+)', line)
        if not m:
            continue
        assert lines[i + 1] == ".EX", "recipe %s: no .EX after its marker" % m.group(1)
        end = lines.index(".EE", i + 2)
        found[m.group(1)] = "\n".join(unroff(l) for l in lines[i + 2:end]) + "\n"
    assert set(found) == {"sqlite3", "duckdb", "jq"}, "recipes found in the man page: %r" % sorted(found)
    return found


def as_row(values):
    """A table row as comparable values: numbers as floats (sqlite3 NUMERIC and DuckDB DOUBLE
    give sums as 1.0 or 1), strings unchanged."""
    return tuple(float(v) if isinstance(v, (int, float)) else v for v in values)


def batch(work, name, lines):
    """Writes lines as NAME/out.ndjson (the file name the recipes read); returns the folder."""
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "out.ndjson"), "wb") as f:
        f.writelines(lines)
    return folder


class Consumers:
    def __init__(self, work, recipe, duck_root):
        self.work, self.recipe, self.duck_root = work, recipe, duck_root
        self.sqlite_db = os.path.join(work, "sqlite.db")
        self.duck_db = os.path.join(work, "duck.db")
        self.duck_script = os.path.join(duck_root, "consumer_duckdb.mjs")
        self.n = 0

    def apply(self, lines, sqlite_db=None):
        """Applies the sqlite3 and DuckDB recipes to lines (bytes ending in newlines)."""
        self.n += 1
        folder = batch(self.work, "batch%d" % self.n, lines)
        with open(os.path.join(folder, "recipe.sql"), "w") as f:
            f.write(self.recipe["sqlite3"])
        with open(os.path.join(folder, "recipe.sql")) as f:
            subprocess.run(["sqlite3", "-bail", sqlite_db or self.sqlite_db], stdin=f, cwd=folder, check=True)
        if sqlite_db is None:
            with open(os.path.join(folder, "duck.sql"), "w") as f:
                f.write(self.recipe["duckdb"])
            subprocess.run(["node", self.duck_script, self.duck_db, os.path.join(folder, "duck.sql")],
                           cwd=self.duck_root, check=True)

    def sqlite_table(self, db, session):
        if session:
            subprocess.run(["sqlite3", db, "DELETE FROM results WHERE NOT final;"], check=True)
        out = subprocess.run(["sqlite3", "-json", db, "SELECT %s, revision, final FROM results" % ", ".join(COLUMNS)],
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out) if out.strip() else []

    def duck_table(self, session):
        script = os.path.join(self.work, "dump.sql")
        with open(script, "w") as f:
            f.write("DELETE FROM results WHERE NOT final;\n" if session else "SELECT 1;\n")
        out = subprocess.run(["node", self.duck_script, self.duck_db, script,
                              "SELECT %s, revision, final FROM results" % ", ".join(COLUMNS)],
                             cwd=self.duck_root, capture_output=True, text=True, check=True).stdout
        rows = [dict(zip(COLUMNS + ["revision", "final"], r)) for r in json.loads(out)]
        for r in rows:  # the node API writes BIGINT values as strings
            r["count"], r["revision"] = int(r["count"]), int(r["revision"])
        return rows


def check_table(what, rows, want, failures, session):
    got = sorted(as_row(r[c] for c in COLUMNS) for r in rows)
    if got != want:
        extra = sorted(set(got) - set(want))[:3]
        missing = sorted(set(want) - set(got))[:3]
        failures.append("%s: %d rows, want %d; extra %r, missing %r" % (what, len(got), len(want), extra, missing))
        return
    not_final = [r for r in rows if r["final"] not in (True, 1, "true")]
    if not_final:
        failures.append("%s: %d rows are not final, e.g. %r" % (what, len(not_final), not_final[0]))
    else:
        print("ok: %s (%d rows%s)" % (what, len(got), ", after deleting the rows not final" if session else ""))


def without_guards(work, recipe, duck_root, lines, want, failures):
    """The recipes' guards are needed on this output, so the checks above can fail: the DuckDB
    recipe without its reduction to the highest revision, and the sqlite3 recipe without its
    revision test over the lines in reverse order, leave other tables."""
    duck = re.sub(r"\n  QUALIFY .*?= 1\n", "\n", recipe["duckdb"], flags=re.S)
    sqlite = recipe["sqlite3"].replace("\n  WHERE excluded.revision > results.revision;", ";")
    if duck == recipe["duckdb"] or sqlite == recipe["sqlite3"]:
        failures.append("the recipes no longer have the guards this test takes off")
        return
    weak = Consumers(os.path.join(work, "weak"), dict(recipe, duckdb=duck, sqlite3=sqlite), duck_root)
    os.mkdir(weak.work)
    weak.apply(lines)
    if sorted(as_row(r[c] for c in COLUMNS) for r in weak.duck_table(False)) == want:
        failures.append("the DuckDB recipe without QUALIFY gave the final table too: its reduction is not tested")
    else:
        print("ok: the DuckDB recipe without its reduction leaves another table")
    reverse_db = os.path.join(weak.work, "reverse.db")
    weak.apply(lines[::-1], sqlite_db=reverse_db)
    if sorted(as_row(r[c] for c in COLUMNS) for r in weak.sqlite_table(reverse_db, False)) == want:
        failures.append("the sqlite3 recipe without its revision test gave the final table too")
    else:
        print("ok: the sqlite3 recipe without its revision test leaves another table, over lines in reverse")


def killed_run(binary, work, args, input_path, rng, min_kills, consumers):
    """Runs args with --state, killed at least min_kills times; applies the recipes after each
    kill. Returns (its output, an uninterrupted run's output, kills) or raises RuntimeError."""
    state = os.path.join(work, "s.db")
    out = os.path.join(work, "out.ndjson")
    cmd = [binary, "-q"] + args + ["-o", out, "--state", state, "--checkpoint-every", "1500", input_path]
    t0 = time.perf_counter()
    subprocess.run([binary, "-q"] + args + ["-o", out, input_path], check=True)
    full = time.perf_counter() - t0
    reference = open(out, "rb").read()
    os.remove(out)
    kills = 0
    for attempt in range(300):
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
        # Early kills first; the delays grow so that a run on a busy machine still ends.
        limit = full * (0.5 if kills < min_kills else 2.0) * (1 + attempt // 40)
        try:
            p.wait(timeout=rng.uniform(0.05, 0.05 + limit))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
            if os.path.exists(out):
                data = open(out, "rb").read()
                consumers.apply(data[:data.rfind(b"\n") + 1].splitlines(keepends=True))
            continue
        if p.returncode != 0:
            raise RuntimeError("exit %d after %d kills" % (p.returncode, kills))
        if kills >= min_kills:
            return open(out, "rb").read(), reference, kills
        # Ended before enough kills: start the job again, killing sooner.
        for f in (state, state + "-wal", state + "-shm", out):
            if os.path.exists(f):
                os.remove(f)
        full *= 0.5
    raise RuntimeError("could not kill the run %d times" % min_kills)


def main():
    binary, gen, repo = sys.argv[1:4]
    for tool in ("sqlite3", "jq"):
        if shutil.which(tool) is None:
            sys.exit("FAIL: %s is a test dependency (.ci/install-deps)" % tool)
    recipe = recipes(repo)
    duck_root = sql_test.install(sql_test.DUCKDB)
    shutil.copy(os.path.join(HERE, "consumer_duckdb.mjs"), os.path.join(duck_root, "consumer_duckdb.mjs"))
    rng = random.Random(29)
    scratch = tempfile.mkdtemp()
    failures = []
    try:
        input_path = os.path.join(scratch, "in.ndjson")
        with open(input_path, "wb") as f:
            subprocess.run([gen, "--lines", "200000", "--seed", "29", "--rate-per-s", "400", "--disorder-ms", "3000",
                            "--late-fraction", "0.02"], stdout=f, check=True)
        for name, window, update_only in QUERIES:
            session = name == "session"
            work = os.path.join(scratch, name)
            os.mkdir(work)
            final = subprocess.run([binary, "-q"] + window + COMMON + [input_path],
                                   capture_output=True, check=True).stdout
            want = sorted(as_row(json.loads(l)[c] for c in COLUMNS) for l in final.splitlines())
            consumers = Consumers(work, recipe, duck_root)
            args = window + COMMON + ["--emit", "update"] + update_only
            try:
                output, reference, kills = killed_run(binary, work, args, os.path.join(scratch, "in.ndjson"), rng, 3,
                                                      consumers)
            except RuntimeError as e:
                failures.append("%s: %s" % (name, e))
                continue
            if output != reference:
                failures.append("%s: the resumed run's output differs from an uninterrupted run" % name)
                continue
            lines = output.splitlines(keepends=True)
            if not any(b'"phase":"late"' in l and b'"final":false' in l for l in lines):
                failures.append("%s: no late correction in the update output: the case tests nothing" % name)
            consumers.apply(lines)
            what = "%s, %d kills, %d records" % (name, kills, len(lines))
            check_table("sqlite3 " + what, consumers.sqlite_table(consumers.sqlite_db, session), want, failures,
                        session)
            check_table("duckdb " + what, consumers.duck_table(session), want, failures, session)
            reverse_db = os.path.join(work, "reverse.db")
            consumers.apply(lines[::-1], sqlite_db=reverse_db)
            check_table("sqlite3, lines in reverse order, " + name, consumers.sqlite_table(reverse_db, session), want,
                        failures, session)
            if name == "tumbling":
                without_guards(work, recipe, duck_root, lines, want, failures)
            jq_cmd = recipe["jq"].strip()
            if session:
                # The man page: "with jq, add | select(.final) to the filter".
                jq_cmd = jq_cmd.replace("[]'", "[] | select(.final)'")
            folder = batch(work, "jq", lines)
            jq_out = subprocess.run(["bash", "-o", "pipefail", "-c", jq_cmd], cwd=folder, capture_output=True,
                                    text=True, check=True).stdout
            check_table("jq " + what, [json.loads(l) for l in jq_out.splitlines()], want, failures, session)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
