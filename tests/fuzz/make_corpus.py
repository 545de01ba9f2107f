#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus, tests/fuzz/corpus/<target>/, from the test data and
from states saved by real runs.

  make_corpus.py LOGTIDE_BINARY

  extractor  the sample log, whole and line by line, small inputs of the golden cases (two an
             area), and lines
             that reach the nested and escaped paths fuzz_extractor.cc reads
  time       the rows of testdata/tables/time_formats.txt as FORMAT<TAB>VALUE, and timestamps,
             durations and epoch numbers alone
  specs      every --window, --agg and --by value in the golden cases' commands, and a few more
  lineformat the logfmt, CSV and TSV inputs of the golden cases (testdata/cases/formats), each
             behind the byte that picks its format for fuzz_lineformat.cc, and their lines alone
  state      for each query of state_queries.txt: the sections and window rows a run with
             --state --hold leaves over the first 8 lines of testdata/sample/app.log, and after a
             second run over all of it; and three of those state files whole

The folders are rewritten whole; review the change with `git status` before committing.
"""
import glob
import os
import re
import shlex
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:40] or "empty"


def extractor():
    sample = open(os.path.join(ROOT, "testdata/sample/app.log"), "rb").read()
    write("extractor", "sample-app-log", sample)
    for i, line in enumerate(sample.split(b"\n")[:6]):
        write("extractor", "sample-line-%d" % (i + 1), line)
    # The golden cases' inputs, one a case, the small ones.
    cases = sorted(glob.glob(os.path.join(ROOT, "testdata/cases/*/*/*.ndjson")))
    seen, per_area = set(), {}
    for path in cases:
        data = open(path, "rb").read()
        case = os.path.basename(os.path.dirname(path))
        area = os.path.basename(os.path.dirname(os.path.dirname(path)))
        if len(data) > 2048 or data in seen or per_area.get(area, 0) == 2:
            continue
        seen.add(data)
        per_area[area] = per_area.get(area, 0) + 1
        write("extractor", "case-%s-%s" % (area, case), data)
    lines = {
        "nested": '{"ts":"2024-05-01T10:00:00Z","req":{"m":"GET","id":7},"a":{"b":{"c":[1,2]}}}',
        "raw-values": '{"arr":[{"x":1},"y",null],"a":{"b":{"c":{"d":true}}},"user":{"id":1}}',
        "escaped-keys": '{"t\\u0073":1700000000.25,"serv\\u0069ce":"a\\"b","t\\u00e9":"\\ud83d\\ude00"}',
        "utf8-key": '{"t\xc3\xa9":"caf\xc3\xa9","host":"h\\u0000x"}',
        "numbers": '{"ts":1e2,"bytes":-0,"status":9223372036854775807,"latency_ms":1.7976931348623157e308}',
        "big-integers": '{"bytes":18446744073709551615,"status":-9223372036854775809,"ts":9007199254740993}',
        "duplicates": '{"service":"a","service":"b","req":{"m":1},"req":{"id":2}}',
        "atoms": '{"service":null,"host":true,"user":false,"status":[],"bytes":{}}',
        "spaces": ' \t{ "service" : "api" , "req" : { "m" : "PUT" } }\t ',
        "crlf-lines": '{"service":"a"}\r\n{"service":"b"}\r\n',
        "not-an-object": '["service","api"]\n"api"\n42\n',
        "broken": '{"service":"api","status":}\n{"service":"api"\n{"service":"a\tb"}\n',
        "deep": '{"a":' * 40 + "1" + "}" * 40,
    }
    for name, text in lines.items():
        write("extractor", name, text.encode("latin-1"))  # "\xc3\xa9": the bytes of UTF-8 é


def time_():
    table = os.path.join(ROOT, "testdata/tables/time_formats.txt")
    n = 0
    for line in open(table, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        fmt, value, _ = line.split("\t")
        if value.startswith('"'):
            value = value[1:-1]
        n += 1
        write("time", "table-%02d-%s" % (n, slug(fmt)), fmt + "\t" + value)
    alone = [
        "2024-05-01T10:00:02.120Z", "2024-02-29T23:59:59+05:30", "1969-12-31T23:59:59.999999999Z",
        "2262-04-11T23:47:16.854775807Z", "1677-09-21T00:12:44Z", "2024-01-01t00:00:00z",
        "2024-05-01T10:00:00Z\n2024-05-01T10:00:30.5Z\n2024-05-01T10:00:59-01:00\n2024-05-01 10:01:00Z",
        "1h30m", "250ms", "1.5s", "0", "1d2h3m4s5ms6us7ns", "36500d", "106751d23h47m16s854ms775us807ns",
        "1700000000.25", "-1700000000.123456789", "1.7e9", "0.000000001", "9223372036854775807",
    ]
    for text in alone:
        write("time", "alone-" + slug(text), text)


def specs():
    values = set()
    for cmd in glob.glob(os.path.join(ROOT, "testdata/cases/*/*/cmd")):
        text = open(cmd, encoding="utf-8").read()
        try:
            words = shlex.split(text, comments=True)
        except ValueError:
            continue
        for flag, value in zip(words, words[1:]):
            if flag in ("--window", "--agg", "--by"):
                values.add(value)
    values |= {
        "sliding:1h:1m", "sliding:100000ms:1ms", "session:1.5s", "tumbling:36500d",
        "tumbling:1h30m", "a=count,b=sum( x ),c=avg(.y.z)", "count(*),count(),count_distinct(k)",
        "first(req.method),last(a.b.c)", "service, host,.req.id", "a.b,a", "$x", "sum(a\\b)",
    }
    for value in sorted(values):
        write("specs", slug(value), value)
    # Expressions (the target parses each input as one too), one a function or operator.
    exprs = {
        "expr-arith": "floor(status / 100) + len(lower(substr(.p, -3, 2))) % 7",
        "expr-matches": 'matches(."user-agent", "^curl/[0-9]+") and exists(.req.method)',
        "expr-where": 'status >= 500 and startswith(path, "/api/") or not (x in [1, "a", null])',
        "expr-regexp-replace": 'regexp_replace(path, "/([0-9]+)(/|$)", "/:id\\\\2")',
        "expr-regexp-extract": 'regexp_extract(.path, "^/api/(v[0-9]+)/", 1)',
        "expr-if-coalesce": 'if(status >= 500, "error", coalesce(user, .req.user, "anon"))',
        "expr-split-concat": 'concat(split_part(path, "/", -1), ":", split_part(host, ".", 1))',
        "expr-round": "round(latency_ms / 1000, 2) + round(bytes, -3)",
        "expr-case": 'case when status >= 500 then "error" when status >= 400 then "client" '
                     'else coalesce(level, "ok") end',
        "expr-case-upper": 'CASE WHEN exists(.user) THEN 1 END == 1',
        "expr-concat-operator": 'service || ":" || lower(method) || split_part(path, "/", 2)',
    }
    for name, text in exprs.items():
        write("specs", name, text)


def sections_seed(query_number, db):
    """The state in `db` as a fuzz_state sections input."""
    con = sqlite3.connect(db)
    out = bytearray([query_number])
    tags = {"counters": b"c", "watermark": b"w", "idleness": b"I", "inputs": b"i", "outputs": b"o",
            "windows": b"W", "changes": b"C"}
    for name, data in con.execute("SELECT name, data FROM sections ORDER BY name"):
        if name == "changes":
            data = b"\x00" + data  # fuzz_state.cc: an even first byte, an NDJSON job's records
        out += tags[name] + struct.pack("<I", len(data)) + data
    live = {}
    for op, k, v in con.execute("SELECT op, k, v FROM window_log ORDER BY id"):
        k, v = bytes(k), bytes(v)
        if op == 0:
            live[k] = v
        elif op == 1:
            live.pop(k, None)
        else:
            for key in [key for key in live if key.startswith(k)]:
                del live[key]
    for k in sorted(live):
        body = struct.pack("<I", len(k)) + k + live[k]
        out += b"r" + struct.pack("<I", len(body)) + body
    con.close()
    return bytes(out)


def state(binary):
    queries = [l.split() for l in open(os.path.join(HERE, "state_queries.txt"), encoding="utf-8")
               if l.strip() and not l.startswith("#")]
    sample = open(os.path.join(ROOT, "testdata/sample/app.log"), "rb").read().split(b"\n")
    whole_files = {0, 2, 3}
    with tempfile.TemporaryDirectory() as tmp:
        for number, flags in enumerate(queries):
            log, db = os.path.join(tmp, "app.log"), os.path.join(tmp, "q%d.db" % number)
            for run, lines in (("first-run", sample[:8]), ("second-run", sample)):
                with open(log, "wb") as f:
                    f.write(b"\n".join(lines) + b"\n")
                subprocess.run([binary, "-q", "--state", db, "--hold", "-o",
                                os.path.join(tmp, "out%d" % number), *flags, log], check=True)
                write("state", "query%d-%s" % (number, run), sections_seed(number, db))
            if number in whole_files:
                shutil.copy(db, os.path.join(CORPUS, "state", "query%d-state-file.db" % number))


def lineformat():
    # fuzz_lineformat.cc: the first byte's value mod 3 picks logfmt (0), CSV (1) or TSV (2).
    picks = {".logfmt": b"\x00", ".csv": b"\x01", ".tsv": b"\x02"}
    for path in sorted(glob.glob(os.path.join(ROOT, "testdata/cases/formats/*/*"))):
        ext = os.path.splitext(path)[1]
        if ext not in picks:
            continue
        data = open(path, "rb").read()
        case = os.path.basename(os.path.dirname(path))[:4]
        write("lineformat", "case%s%s" % (case, ext.replace(".", "-")), picks[ext] + data)
        if ext == ".logfmt":
            for i, line in enumerate(data.split(b"\n")[:8]):
                write("lineformat", "case%s-line%d" % (case, i + 1), picks[ext] + line)
    # Escapes, quotes, separators and numbers at their edges.
    write("lineformat", "logfmt-escapes", b'\x00a="\\u00e9\\n\\"" b=\\x c= d e=1e3 f=-0 g=012 h="x\ty"')
    write("lineformat", "csv-quotes", b'\x01a,b,c\n"x""y","1,2",\n,,""\n"open\n1,2,3,4')
    write("lineformat", "tsv-quotes", b'\x02a\tb\n"q"\t-1.5e-3\n\t\n')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for target in ("extractor", "time", "specs", "lineformat", "state"):
        # Inputs a fuzz run once failed on (regression-*) stay: every run replays them first.
        folder = os.path.join(CORPUS, target)
        os.makedirs(folder, exist_ok=True)
        for f in os.listdir(folder):
            if not f.startswith("regression-"):
                os.remove(os.path.join(folder, f))
    extractor()
    time_()
    specs()
    lineformat()
    state(os.path.abspath(sys.argv[1]))
    for target in ("extractor", "time", "specs", "lineformat", "state"):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        print("%-9s %3d files, %6d bytes" % (target, len(files), size))


if __name__ == "__main__":
    main()
