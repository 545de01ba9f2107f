#!/usr/bin/env python3
"""The script --explain=sql:clickhouse prints, run on a two-shard ClickHouse cluster (issue 34).

  clickhouse_test.py LOGTIDE REPO

Starts two clickhouse-server processes on free loopback ports in a temporary folder, each with a
cluster named logtide of both shards, and for every translatable case of tests/sql/cases.txt and
40 random queries (tumbling and sliding windows with and without a grid offset, zero to two keys
of every kind, nested paths, keys with dots, every translated aggregate, update mode) over 3000
generated events: runs part 1 of the script on both servers (each case in a database of its
own), loads the input with part 2's own command through the Distributed table, checks that the
random input's rows landed on both shards, and compares the rows of part 3 (one query over the
distributed events) and of part 4 (the materialized view's partial states, merged) with
logtide's records, as values, in order. Queries the script refuses must say why (a reason the
man page lists). Stops the servers.

Values compare as in sql_test.py (duckdb), and a column ClickHouse writes as text (keys, first
and last) compares with logtide's value as the man page says it is written: a string as its
characters, a number as a double, true or false, an object or array as its JSON. Without
clickhouse-server and clickhouse-client (Debian's packages: .ci/install-deps installs them; the
product never needs them) the test exits 77 (skipped).
"""
import datetime
import json
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sql_test  # noqa: E402  (read_cases, same)

SERVER = "/usr/sbin/clickhouse-server"
CLIENT = "/usr/bin/clickhouse-client"
# Cases whose records differ, for a reason the man page states (RUNNING THE SAME JOB ELSEWHERE).
LEFT_OUT = {
    "window/0002-tumbling-before-1970": "times before 1970 (ClickHouse's DateTime starts there)",
}
# Reasons a refusal may give (clickhouse_sql.h: ClickHouseUntranslated).
REASONS = ["not yet translated for ClickHouse", "not translated for ClickHouse",
           "visitParamExtractRaw cannot address", "visitParamExtractRaw matches as written",
           "the script reads each line as JSON text", "a batch query has no", "take as constants only",
           "extract() cannot give", "takes only constant"]


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


CONFIG = """<yandex>
  <logger><level>warning</level><log>{dir}/server.log</log><errorlog>{dir}/error.log</errorlog></logger>
  <tcp_port>{tcp}</tcp_port>
  <http_port>{http}</http_port>
  <interserver_http_port>{inter}</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/tmp/</tmp_path>
  <user_files_path>{dir}/user_files/</user_files_path>
  <format_schema_path>{dir}/format_schemas/</format_schema_path>
  <users_config>{dir}/users.xml</users_config>
  <timezone>UTC</timezone>
  <mark_cache_size>53687091</mark_cache_size>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <remote_servers><logtide>{shards}</logtide></remote_servers>
</yandex>
"""
USERS = """<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
"""


class Cluster:
    def __init__(self, root):
        self.procs, self.ports = [], []
        for attempt in range(3):
            ports = free_ports(6)
            shards = "".join("<shard><replica><host>127.0.0.1</host><port>%d</port></replica></shard>" % p
                             for p in ports[0::3])
            self.procs, self.ports = [], ports[0::3]
            for i in range(2):
                d = os.path.join(root, "server%d-%d" % (attempt, i))
                os.makedirs(d)
                with open(os.path.join(d, "config.xml"), "w") as f:
                    f.write(CONFIG.format(dir=d, tcp=ports[3 * i], http=ports[3 * i + 1],
                                          inter=ports[3 * i + 2], shards=shards))
                with open(os.path.join(d, "users.xml"), "w") as f:
                    f.write(USERS)
                self.procs.append(subprocess.Popen([SERVER, "--config-file=" + os.path.join(d, "config.xml")],
                                                   cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            if self.wait_ready():
                return
            self.stop()  # a port taken meanwhile: again, with others
        sys.exit("FAIL: the two clickhouse-server processes did not start")

    def wait_ready(self):
        deadline = time.time() + 120
        for port in self.ports:
            while True:
                if any(p.poll() is not None for p in self.procs):
                    return False
                r = subprocess.run([CLIENT, "--port", str(port), "-q", "SELECT 1"], capture_output=True)
                if r.returncode == 0:
                    break
                if time.time() > deadline:
                    return False
                time.sleep(0.5)
        return True

    def client(self, i, db, *args, stdin=None):
        cmd = [CLIENT, "--port", str(self.ports[i])] + (["--database", db] if db else []) + list(args)
        return subprocess.run(cmd, input=stdin, capture_output=True, text=True)

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def parts(script):
    """Returns the script's four parts, split at its "-- [N/4]" lines."""
    pieces = re.split(r"^-- \[[1-4]/4\].*$", script, flags=re.M)
    if len(pieces) != 5:
        raise ValueError("the script has not four parts marked -- [N/4]")
    return pieces[1:]


def load_command(part2, port, db):
    """Returns part 2's load command (its comment lines), run against server `port`."""
    cmd = []
    for l in part2.splitlines():
        if l.startswith("-- ("):
            break
        if l.startswith("--   "):
            cmd.append(l[5:])
    text = "\n".join(cmd).strip()
    return text.replace("clickhouse-client", "%s --port %d --database %s --insert_distributed_sync=1" %
                        (CLIENT, port, db), 1)


def same_value(v, c, tol):
    """Whether logtide's value v is ClickHouse's c, a text column written as the man page says;
    top_k's [{"value", "count", "error"}] are [value, count, error] triples there."""
    if isinstance(v, list) and isinstance(c, list) and all(isinstance(x, dict) for x in v):
        return len(v) == len(c) and all(
            isinstance(t, list) and len(t) == 3 and same_value(x["value"], t[0], None) and
            x["count"] == t[1] and x["error"] == t[2] for x, t in zip(v, c))
    if isinstance(c, str) and not isinstance(v, str):
        if v is None:
            return False
        if isinstance(v, bool):
            return c == ("true" if v else "false")
        if isinstance(v, (int, float)):
            try:
                return sql_test.same(v, float(c), tol)
            except ValueError:
                return False
        try:
            return json.loads(c) == v
        except ValueError:
            return False
    return sql_test.same(v, c, tol)


def compare(records, rows, tol):
    if not isinstance(rows, list):
        return rows
    if records and rows and list(records[0].keys()) != list(rows[0].keys()):
        return "columns: logtide %s, ClickHouse %s" % (list(records[0].keys()), list(rows[0].keys()))
    if len(records) != len(rows):
        return "%d records from logtide, %d rows from ClickHouse" % (len(records), len(rows))
    for i, (rec, row) in enumerate(zip(records, rows)):
        for col in rec:
            if not same_value(rec[col], row[col], tol.get(col)):
                return "record %d, %s: logtide %s, ClickHouse %s\n  logtide:    %s\n  ClickHouse: %s" % (
                    i + 1, col, json.dumps(rec[col]), json.dumps(row[col]), json.dumps(rec), json.dumps(row))
    return None


WINDOWS = ["tumbling:7m", "tumbling:1h", "tumbling:90s", "sliding:10m:3m", "sliding:1h:15m",
           "tumbling:1h:offset=20m", "tumbling:7m:offset=-2m", "sliding:10m:3m:offset=1m", "tumbling:150s",
           "sliding:7m:2m", "session:2m", "session:45s", "session:10m", "tumbling:1d:offset=10h",
           "tumbling:1w:offset=-1d"]
AGGS = ["count", "count(n)", "sum(n)", "min(n)", "max(n)", "avg(n)", "count_distinct(u)", "first(u)",
        "last(req.m)", "p90(n)", "median(n)", "quantile(n, 0)", "approx_count_distinct(svc)",
        'sum(req."b.n")', 'last(.["log.level"])', "first(req)", "count(req.m)", "max(req.x.y)",
        "top_k(u, 3)", "top_k(req.m, 2)"]
KEYS = [[], ["svc"], ["req.m"], ["svc", "req.m"], ["u"], ['."log.level"'], ["req.x.y", "svc"]]


# Expressions the generator of tests/expr/where_differential.py does not write (as sql_test.py's,
# without array elements, which the script refuses).
EXTRA_PREDICATES = ['matches(u, "^u[0-3]")', 'matches(req.m, "(?i)get|T$")', 'req.m == u', 'n < u',
                    'svc != req.m', 'n in [1, "x", true, null, 2.5]', 'u in []', 'len(u) == 2',
                    'contains(svc, "a") or n > 2', 'not (n > 1 and exists(svc))', 'matches(msg, "a.b")',
                    'matches(msg, "(?i)^a.b$")', 'substr(u, 1) == "3"', 'substr(svc, -1, 1) >= "b"',
                    'substr(u, n) != ""', 'substr(u, 0, n) == "u"']
# No object as a key: the random lines spell objects two ways (with and without spaces), which the
# script takes for two keys (the man page says so).
EXTRA_KEYS = ['lower(req.m)', 'n % 3', 'n / 4', 'exists(svc)', 'n > 2', '-n', 'round(n)', 'u', 'null',
              '"const"', 'len(u)', 'regexp_replace(u, "[0-9]+", "#")', 'regexp_extract(u, "u([0-3])", 1)',
              'coalesce(svc, req.m, "none")', 'if(n > 2, "big", u)', 'split_part(u, "u", 2)',
              'concat(svc, "-", req.m)', 'round(n, 1)', 'if(exists(svc), n, svc)', 'n * 1.5 + 1',
              'regexp_replace(msg, "a.b", "X")', 'regexp_extract(msg, "a(.)b", 1)', 'regexp_extract(msg, "a.")',
              'lower(msg)', 'len(msg)', 'substr(u, -2)', 'substr(msg, 1, 1)', 'substr("h\u00e9llo", 1, 2)']
EXPR_QUERIES = 30


# The random events' fields and their spellings, for the expression generator.
PATHS = {"svc": (None, ["svc", ".svc"]), "n": (None, ["n"]), "req.m": (None, ["req.m", '.req["m"]']),
         "u": (None, ["u"]), "missing": (None, ["missing"]),
         "log.level": (None, ['."log.level"', '.["log.level"]']),
         "req.b.n": (None, ['req."b.n"']), "req.x.y": (None, ["req.x.y"]), "msg": (None, ["msg"])}


def random_queries(folder, seed):
    """Writes folder/in.ndjson (3000 events in time order, so none is late; every type of value
    in every field, some absent) and returns (name, args) of random queries over it."""
    rnd = random.Random(seed)
    events = []
    for _ in range(3000):
        ev = {"ts": 1714557600000 + rnd.randint(-3600000, 7200000),
              "svc": rnd.choice(["a", "b", "c", "d\u00e9", None, "x\"y"]),
              "n": rnd.choice([1, 2, 3.5, -4, "x", None, 10 ** 6, 0.25, True, 0, -0.0]),
              "req": {"m": rnd.choice(["GET", "POST", 1, True, None]), "b.n": rnd.choice([1, 2.5, -3, "x", None]),
                      "x": rnd.choice([{"y": rnd.choice(["p", "q", 5])}, {"z": 1}, 3])},
              "u": rnd.choice(["u%d" % k for k in range(40)] + [7, 7.5, False, None]),
              "log.level": rnd.choice(["info", "warn", 3, None]),
              # '.' matches no newline in logtide's RE2 patterns, as in the script's.
              "msg": rnd.choice(["a\nb", "a-b", "ab", "A\u00e9B", None])}
        if rnd.random() < 0.05:
            del ev["svc"]
        if rnd.random() < 0.05:
            del ev["req"]
        events.append(ev)
    events.sort(key=lambda e: e["ts"])
    for ev in events:
        # Some times as RFC 3339 text, with a fraction and an offset, and some bad ones (bad
        # lines for logtide and the script alike).
        r = rnd.random()
        if r < 0.15:
            t = datetime.datetime.fromtimestamp(ev["ts"] / 1000, datetime.timezone.utc)
            if r < 0.05:
                t = t.astimezone(datetime.timezone(datetime.timedelta(hours=5, minutes=30)))
            ev["ts"] = t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        elif r < 0.17:
            ev["ts"] = rnd.choice(["2024-05-01T10:00:02", "2024-02-30T10:00:00Z", "2024-05-01T24:00:00Z",
                                   "2024-05-01T10:00:60Z", "2024-05-01T10:00:00+00:60", "10:00"])
    with open(os.path.join(folder, "in.ndjson"), "w") as f:
        for i, e in enumerate(events):
            # Both spellings loggers use: compact, and with a space after each colon and comma.
            f.write(json.dumps(e, separators=(",", ":") if i % 2 else (", ", ": ")) + "\n")
    predicate, operand = sql_test.expressions(random.Random(seed + 1), PATHS, EXTRA_PREDICATES, EXTRA_KEYS)
    queries = []
    for i in range(40 + EXPR_QUERIES):
        args = sql_test.random_shape(rnd, WINDOWS, KEYS, AGGS)
        if i >= 40:
            sql_test.add_expressions(args, rnd, predicate, operand, AGGS)
        queries.append(("random/%d" % (i + 1), args + ["in.ndjson"]))
    return queries


def main():
    logtide, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not (os.access(SERVER, os.X_OK) and os.access(CLIENT, os.X_OK)):
        skip("clickhouse-server and clickhouse-client are needed to run this test (the product "
             "does not need them)")
    scratch = tempfile.mkdtemp(prefix="logtide-clickhouse-")
    cluster = None
    try:
        cases = []
        for name, case, args in sql_test.read_cases(repo):
            if name in LEFT_OUT:
                continue
            work = os.path.join(scratch, "cases", name.replace("/", "_"))
            shutil.copytree(case, work)
            cases.append((name, work, args))
        generated = os.path.join(scratch, "random")
        os.makedirs(generated)
        cases += [(name, generated, args) for name, args in random_queries(generated, 34)]
        only = os.environ.get("LOGTIDE_CLICKHOUSE_ONLY")  # a case's name: run only that one
        if only:
            cases = [c for c in cases if c[0] == only]
        cluster = Cluster(scratch)
        failed = passed = refused = 0
        empty_cases = set()
        both_shards = False
        for i, (name, work, args) in enumerate(cases):
            r = subprocess.run([logtide] + args + ["--explain=sql:clickhouse"], cwd=work, capture_output=True,
                               text=True)
            if r.returncode != 0:
                if r.returncode == 2 and any(why in r.stderr for why in REASONS):
                    refused += 1
                    print("refused %s: %s" % (name, r.stderr.strip().splitlines()[0][:300]))
                    continue
                failed += 1
                print("FAIL %s: --explain=sql:clickhouse exited %d: %s" % (name, r.returncode, r.stderr))
                continue
            script = r.stdout
            run = subprocess.run([logtide, "-q", "--stats"] + args, cwd=work, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit("FAIL %s: logtide exited %d: %s" % (name, run.returncode, run.stderr))
            stats = json.loads(run.stderr.strip().splitlines()[-1])
            if stats["late_events"] + stats.get("partly_late_events", 0):
                sys.exit("FAIL %s: late events: take the case off tests/sql/cases.txt" % name)
            records = [json.loads(l) for l in run.stdout.splitlines()]
            if not records:
                empty_cases.add(name)
            tables, load, direct, merged = parts(script)
            db = "case%d" % i
            problem = None
            for s in range(2):
                for q in ("CREATE DATABASE %s" % db,):
                    c = cluster.client(s, None, "-q", q)
                    if c.returncode != 0:
                        problem = problem or "server %d: %s" % (s + 1, c.stderr)
                c = cluster.client(s, db, "-n", stdin=tables)
                if c.returncode != 0:
                    problem = problem or "part 1 on server %d: %s" % (s + 1, c.stderr)
            if not problem:
                c = subprocess.run(["bash", "-c", "set -o pipefail; " + load_command(load, cluster.ports[0], db)],
                                   cwd=work, capture_output=True, text=True)
                if c.returncode != 0:
                    problem = "part 2 (load): %s" % c.stderr
            if not problem and work == generated:
                counts = []
                for s in range(2):
                    c = cluster.client(s, db, "-q", "SELECT count() FROM logtide_events_local")
                    counts.append(int(c.stdout.strip() or 0))
                print("  %s: rows per shard %s" % (name, counts))
                if sum(counts) != 3000:
                    problem = "the shards hold %s rows, not 3000" % counts
                both_shards = both_shards or (len(args) > 4 and "--by" in args and min(counts) > 0)
            tol = {}
            for m in re.finditer(r"arrayElement\(arraySort\(groupArray\(.* AS `((?:[^`\\]|\\.)*)`,?$", direct, re.M):
                tol[m.group(1)] = 0.01
            for part, sql in (("3", direct), ("4", merged)):
                if problem:
                    break
                c = cluster.client(0, db, "-n", "--format", "JSONEachRow",
                                   "--output_format_json_quote_64bit_integers=0",
                                   "--output_format_json_quote_denormals=0", stdin=sql)
                rows = [json.loads(l) for l in c.stdout.splitlines()] if c.returncode == 0 else \
                    "part %s: %s" % (part, c.stderr)
                p = compare(records, rows, tol)
                if p:
                    problem = "part %s: %s" % (part, p)
            for s in range(2):
                cluster.client(s, None, "-q", "DROP DATABASE IF EXISTS %s" % db)
            if problem:
                failed += 1
                print("FAIL %s (logtide %s)\n  %s\n--- the script:\n%s" % (
                    name, " ".join(shlex.quote(a) for a in args), problem, script))
            else:
                passed += 1
                print("ok %s: %d records" % (name, len(records)))
        if not both_shards and not only:
            failed += 1
            print("FAIL: no keyed random query had rows on both shards")
        # Two empty results agree: most random queries must have records for the test to say much.
        empty = sum(1 for name, work, args in cases if work == generated and name in empty_cases)
        if empty > 10 and not only:
            failed += 1
            print("FAIL: %d random queries had no records: the comparison says little" % empty)
        if passed < 30 and not only:
            failed += 1
            print("FAIL: only %d cases ran (the rest refused): too few to say the translation holds" % passed)
        print("%d passed, %d refused, %d failed" % (passed, refused, failed))
        return 1 if failed else 0
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
