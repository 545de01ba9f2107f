#!/usr/bin/env python3
"""Corruption loop for --state (issue 16): a small state file is damaged in every region,
SQLite-style, and a resumed run must end in exit 5 ("damaged", the state file unchanged) or in
exactly the output of an undamaged run: never a crash, another exit status, or a wrong number.

Damage: one bit flipped at offsets spread over the whole file, truncations, and SQL-level
edits of every table (a value changed, a row deleted or duplicated, a column set to NULL),
done with SQLite itself, so its integrity check passes and only logtide's checks can tell.
Substitutions (issue 28): whole rows and sections, each with a right checksum, deleted,
reordered, or taken from an older checkpoint of the same job or from another job with the same
query (a torn backup copy is such a mix), for a tumbling and a session job; these must be
refused (exit 5, the state file unchanged), never resumed.

Usage: corruption_test.py LOGTIDE LOGTIDE_GEN
Prints a line per failing trial and 'N passed, N failed'.
"""
import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

SESSION_QUERY = ["--window", "session:4s", "--by", "service", "--agg", "count", "--agg", "p90(bytes)",
                 "--agg", "approx_count_distinct(host)", "--emit", "update", "--lateness", "5s", "--delay", "2s"]
QUERY = ["--window", "tumbling:10s", "--by", "service", "--agg", "count", "--agg", "sum(bytes)",
         "--agg", "count_distinct(host)", "--agg", "last(path)", "--emit", "update", "--lateness", "5s",
         "--delay", "2s"]
SEED = 20261130


class Unchanged(Exception):
    pass


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    binary, gen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rng = random.Random(SEED)
    print("seed %d" % SEED)
    work = tempfile.mkdtemp(prefix="logtide-corrupt-")
    passed = failed = 0
    try:
        os.chdir(work)
        with open("all.ndjson", "wb") as f:
            subprocess.run([gen, "--lines", "3000", "--seed", "3", "--rate-per-s", "50", "--disorder-ms", "3000",
                            "--late-fraction", "0.02"], stdout=f, check=True)
        data = open("all.ndjson", "rb").read()
        cut = data.index(b"\n", len(data) // 2) + 1
        with open("ref.ndjson", "wb") as f:
            subprocess.run([binary, "-q"] + QUERY + ["all.ndjson"], stdout=f, check=True)
        # The good state: a --hold run over the first half, checkpointing often.
        with open("app.log", "wb") as f:
            f.write(data[:cut])
        subprocess.run([binary, "-q"] + QUERY + ["--state", "good.db", "--hold", "--checkpoint-every", "300",
                                                  "-o", "good-out.ndjson", "app.log"], check=True)
        for suffix in ("-wal", "-shm"):
            assert not os.path.exists("good.db" + suffix), "the state was not checkpointed into the file"
        size = os.path.getsize("good.db")

        def trial(what, damage, job=None):
            """Damages a copy of job's state and resumes it over the whole input. job: None for
            the good state, or (query, state, its output, the uninterrupted output, input); a
            trial with a job must be refused."""
            nonlocal passed, failed
            query, base, base_out, ref, whole = job or (QUERY, "good.db", "good-out.ndjson", "ref.ndjson", data)
            for f in ("s.db", "s.db-wal", "s.db-shm"):
                if os.path.exists(f):
                    os.remove(f)
            shutil.copy(base, "s.db")
            shutil.copy(base_out, "out.ndjson")
            with open("app.log", "wb") as f:
                f.write(whole)
            damage("s.db")
            before = digest("s.db")
            p = subprocess.run([binary, "-q"] + query + ["--state", "s.db", "-o", "out.ndjson", "app.log"],
                               capture_output=True)
            # A message quotes what it read from the damaged file as text: valid UTF-8, no
            # control bytes but the newline.
            try:
                p.stderr = p.stderr.decode("utf-8")
                printable = all(c == "\n" or c >= " " for c in p.stderr)
            except UnicodeDecodeError:
                p.stderr = p.stderr.decode("utf-8", "backslashreplace")
                printable = False
            ok = printable and (
                (p.returncode == 5 and "state file" in p.stderr and digest("s.db") == before) or
                (p.returncode == 0 and job is None and open("out.ndjson").read() == open(ref).read()))
            if ok:
                passed += 1
            else:
                failed += 1
                why = "exit %d" % p.returncode + ("" if printable else ", a message not printable text")
                if p.returncode == 0:
                    why += ", resumed" if open("out.ndjson").read() == open(ref).read() else ", wrong output"
                elif p.returncode == 5:
                    why += ", state changed" if digest("s.db") != before else ", message: " + p.stderr.strip()
                print("FAIL %s: %s %s" % (what, why, p.stderr.strip()[:300]))
            return p.returncode

        def flip(offset, bit):
            def d(path):
                with open(path, "r+b") as f:
                    f.seek(offset)
                    b = f.read(1)[0]
                    f.seek(offset)
                    f.write(bytes([b ^ (1 << bit)]))
            return d

        def truncate(n):
            def d(path):
                with open(path, "r+b") as f:
                    f.truncate(n)
            return d

        def sql(statement):
            def d(path):
                c = sqlite3.connect(path)
                c.execute(statement)
                c.commit()
                c.close()
            return d

        outcomes = {}
        # Bit flips over the whole file: the header, every page.
        for i in range(240):
            offset = (i * size) // 240 + rng.randrange(0, max(1, size // 240))
            rc = trial("bit flip at %d" % offset, flip(min(offset, size - 1), rng.randrange(8)))
            outcomes[rc] = outcomes.get(rc, 0) + 1
        for n in sorted({0, 1, 99, 100, 4096, size // 2, size - 4096, size - 1}):
            if 0 <= n < size:
                trial("truncated to %d bytes" % n, truncate(n))
        # SQL-level edits of every table, which SQLite's integrity check cannot see.
        edits = []
        for table, cols in (("meta", ["key", "value", "sum"]), ("sections", ["name", "version", "data", "sum"]),
                            ("window_log", ["op", "k", "v", "sum"])):
            ids = [r[0] for r in sqlite3.connect("good.db").execute("SELECT rowid FROM %s" % table)] \
                if table == "window_log" else None
            for col in cols:
                where = "rowid = (SELECT min(rowid) FROM %s)" % table if table == "window_log" else \
                    "%s = (SELECT min(%s) FROM %s)" % (cols[0], cols[0], table)
                if col in ("sum", "version", "op"):
                    edits.append(("%s.%s + 1" % (table, col), "UPDATE %s SET %s = %s + 1 WHERE %s" % (table, col, col, where)))
                else:
                    edits.append(("%s.%s changed" % (table, col),
                                  "UPDATE %s SET %s = CAST(%s AS BLOB) || x'00' WHERE %s" % (table, col, col, where)))
                edits.append(("%s.%s NULL" % (table, col), "UPDATE %s SET %s = NULL WHERE %s" % (table, col, where)))
            key = "rowid" if table == "window_log" else cols[0]
            edits.append(("a %s row deleted" % table,
                          "DELETE FROM %s WHERE %s = (SELECT min(%s) FROM %s)" % (table, key, key, table)))
            if ids:
                edits.append(("a window_log row repeated",
                              "INSERT INTO window_log(op, k, v, sum) SELECT op, k, v, sum FROM window_log WHERE rowid = %d" % ids[len(ids) // 2]))
        for what, statement in edits:
            try:
                trial(what, sql(statement))
            except sqlite3.Error as e:  # a NOT NULL column refuses NULL: nothing to test
                if "NOT NULL" not in str(e):
                    raise
        print("bit flips: exit status -> trials: %s" % dict(sorted(outcomes.items())))

        # Substitutions. Each job's state is made in two --hold runs; the first one's state is an
        # older checkpoint of the same job. Another job has the same query (and output name, as
        # the resumed run's) over other input.
        def job(name, query, lines_seed):
            p = subprocess.run([gen, "--lines", "3000", "--seed", str(lines_seed), "--rate-per-s", "50",
                                "--disorder-ms", "3000", "--late-fraction", "0.02"], stdout=subprocess.PIPE,
                               check=True)
            whole = p.stdout
            half = whole.index(b"\n", len(whole) // 2) + 1
            third = whole.index(b"\n", len(whole) // 3) + 1
            with open(name + "-ref.ndjson", "wb") as f:
                subprocess.run([binary, "-q"] + query + ["-"], input=whole, stdout=f, check=True)
            if os.path.exists("out.ndjson"):
                os.remove("out.ndjson")
            for n, end in (("older", third), ("", half)):
                with open("app.log", "wb") as f:
                    f.write(whole[:end])
                subprocess.run([binary, "-q"] + query + ["--state", name + ".db", "--hold", "--checkpoint-every",
                                                          "300", "-o", "out.ndjson", "app.log"], check=True)
                if n:
                    shutil.copy(name + ".db", name + "-older.db")
            os.rename("out.ndjson", name + "-out.ndjson")
            p = subprocess.run([gen, "--lines", "3000", "--seed", str(lines_seed + 100), "--rate-per-s", "50",
                                "--disorder-ms", "3000", "--late-fraction", "0.02"], stdout=subprocess.PIPE,
                               check=True)
            with open("app.log", "wb") as f:
                f.write(p.stdout[:p.stdout.index(b"\n", len(p.stdout) // 2) + 1])
            subprocess.run([binary, "-q"] + query + ["--state", name + "-other.db", "--hold", "--checkpoint-every",
                                                      "300", "-o", "out.ndjson", "app.log"], check=True)
            return (query, name + ".db", name + "-out.ndjson", name + "-ref.ndjson", whole)

        def rows(path):
            c = sqlite3.connect(path)
            out = [c.execute("SELECT * FROM %s ORDER BY 1" % t).fetchall() for t in ("meta", "sections", "window_log")]
            c.close()
            return out

        def substitute(statement, donor=None):
            def d(path):
                was = rows(path)
                c = sqlite3.connect(path)
                if donor:
                    c.execute("ATTACH ? AS d", (donor,))
                c.executescript("BEGIN; " + statement + "; COMMIT;")
                c.close()
                if rows(path) == was:
                    raise Unchanged()
            return d

        substituted = {}
        for name, query, seed in (("tumbling", QUERY, 3), ("session", SESSION_QUERY, 5)):
            j = job(name, query, seed)
            older, other = name + "-older.db", name + "-other.db"
            cases = [
                ("the first window row deleted", "DELETE FROM window_log WHERE id = (SELECT min(id) FROM window_log)", None),
                ("the last window row deleted", "DELETE FROM window_log WHERE id = (SELECT max(id) FROM window_log)", None),
                ("every window row deleted", "DELETE FROM window_log", None),
                ("the window rows reversed (id = -id)", "UPDATE window_log SET id = -id", None),
                ("the first and last window rows swapped",
                 "CREATE TEMP TABLE e AS SELECT min(id) AS lo, max(id) AS hi FROM window_log; "
                 "UPDATE window_log SET id = 0 WHERE id = (SELECT lo FROM e); "
                 "UPDATE window_log SET id = (SELECT lo FROM e) WHERE id = (SELECT hi FROM e); "
                 "UPDATE window_log SET id = (SELECT hi FROM e) WHERE id = 0", None),
            ]
            for donor, whose in ((older, "an older checkpoint's"), (other, "another job's")):
                cases += [
                    ("the window rows replaced by " + whose,
                     "DELETE FROM window_log; INSERT INTO window_log SELECT * FROM d.window_log", donor),
                    ("the window rows and meta replaced by " + whose,
                     "DELETE FROM window_log; INSERT INTO window_log SELECT * FROM d.window_log; DELETE FROM meta; "
                     "INSERT INTO meta SELECT * FROM d.meta", donor),
                    ("every section replaced by " + whose,
                     "DELETE FROM sections; INSERT INTO sections SELECT * FROM d.sections", donor),
                ] + [("the %s section replaced by %s" % (sec, whose),
                      "DELETE FROM sections WHERE name = '%s'; INSERT INTO sections SELECT * FROM d.sections WHERE "
                      "name = '%s'" % (sec, sec), donor) for sec in ("inputs", "outputs", "windows")]
            for what, statement, donor in cases:
                try:
                    rc = trial("%s job: %s" % (name, what), substitute(statement, donor), j)
                    substituted[rc] = substituted.get(rc, 0) + 1
                except Unchanged:  # the donor's rows are the same as the state's: nothing to test
                    print("same rows, no trial: %s job: %s" % (name, what))
        print("substitutions: exit status -> trials: %s" % dict(sorted(substituted.items())))
    finally:
        os.chdir("/")
        shutil.rmtree(work)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
