#!/usr/bin/env python3
"""Differential test of expressions: random expressions over random events, evaluated by logtide
(as --where, and as a derived key's value) and by a straightforward evaluator written here from
the man page's EXPRESSIONS section. Every expression must keep exactly the events the model keeps,
and every derived value must equal the model's. Paths come in every written form, including a
key holding a dot and array indices (negative from the end, past the end, into a non-array).

Usage: where_differential.py LOGTIDE_BINARY SEED COUNT
Prints each disagreement with the expression and the event, then 'N passed, N failed'.
"""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

FIELDS = ["a", "b", "c.d", "e", "missing", "x.y", "arr[0]", "arr[-1]", "arr[1]"]
# Each field's path (keys and array indices) and the ways to write it.
PATHS = {
    "a": (["a"], ["a", ".a"]),
    "b": (["b"], ["b", ".b"]),
    "c.d": (["c", "d"], ["c.d", ".c.d", '.c["d"]']),
    "e": (["e"], ["e", ".e"]),
    "missing": (["missing"], ["missing", ".missing"]),
    "x.y": (["x.y"], ['."x.y"', '.["x.y"]']),  # a key holding a dot
    "arr[0]": (["arr", 0], ["arr[0]", ".arr[0]"]),
    "arr[-1]": (["arr", -1], [".arr[-1]", "arr[-1]"]),
    "arr[1]": (["arr", 1], [".arr[1]", '.["arr"][1]']),
}


def lookup(rec, name):
    v = rec
    for part in PATHS[name][0]:
        if isinstance(part, int):
            if not isinstance(v, list) or not -len(v) <= part < len(v):
                return None
            v = v[part]
        else:
            v = v.get(part) if isinstance(v, dict) else None
    return v


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ---- the model ----------------------------------------------------------------------------

def canon(v):
    """A number as logtide keeps it: an integral value within 64 bits is an integer."""
    if isinstance(v, float) and v.is_integer() and -2**63 <= v < 2**63:
        return int(v)
    return v


def kind(v):
    if is_num(v):
        return "n"
    if isinstance(v, bool):
        return "b"
    if isinstance(v, str):
        return "s"
    return "o"


def compare(op, x, y):
    if kind(x) != kind(y):
        return op == "!="
    if op in ("<", "<=", ">", ">=") and kind(x) not in ("n", "s"):
        return False
    if kind(x) == "s":
        x, y = x.encode(), y.encode()
    return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


def arith(op, x, y):
    if x is None or y is None:
        return None
    if not is_num(x) or not is_num(y):
        return None
    if isinstance(x, int) and isinstance(y, int):
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if y == 0:
            return None
        if op == "%":
            return int(math.fmod(x, y))  # the sign of the dividend, as C
        if x % y == 0:
            return x // y
    x, y = float(x), float(y)
    if op in ("/", "%") and y == 0:
        return None
    r = {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else 0, "%": math.fmod(x, y) if y else 0}[op]
    return canon(r) if math.isfinite(r) else None


def round_half_away(v):
    """C's round(): halves away from zero, exactly (v - floor(v) is exact for doubles)."""
    if v < 0:
        return -round_half_away(-v)
    r = math.floor(v)
    return float(r + 1 if v - r >= 0.5 else r)


def round_digits(x, d):
    """round(x, d) as the man page says: x * 10^d rounded, divided back (d < 0: x / 10^-d)."""
    if isinstance(x, int) and d >= 0:
        return x
    try:
        m = 10.0 ** abs(d)
    except OverflowError:
        m = math.inf
    if d >= 0:
        r = round_half_away(x * m) / m if math.isfinite(x * m) else math.nan
        return canon(r) if math.isfinite(r) else canon(float(x))
    r = round_half_away(x / m) * m
    return canon(r) if math.isfinite(r) else 0


def rewrite(repl, m):
    """An RE2 rewrite: \\0 to \\9 the match and its groups (one that took no part: ""), \\\\ a backslash."""
    out, i = [], 0
    while i < len(repl):
        c = repl[i]
        if c == "\\" and i + 1 < len(repl):
            d = repl[i + 1]
            out.append(m.group(int(d)) or "" if d.isdigit() else d)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def regexp_replace(s, pattern, repl):
    """Every match left to right, as RE2's GlobalReplace: an empty match right after a match is
    skipped (Python's re.sub would replace there)."""
    r = re.compile(pattern)
    out, p, last_end = [], 0, None
    while p <= len(s):
        m = r.search(s, p)
        if not m:
            break
        out.append(s[p:m.start()])
        if m.start() == last_end and m.end() == m.start():
            if p == len(s):
                break
            out.append(s[p])
            p += 1
            continue
        out.append(rewrite(repl, m))
        p = last_end = m.end()
    out.append(s[p:])
    return "".join(out)


def split_part(s, sep, n):
    if sep == "":
        return s if n in (1, -1) else ""
    parts = s.split(sep)  # left to right, as logtide
    if n > 0:
        return parts[n - 1] if n <= len(parts) else ""
    return parts[n] if -n <= len(parts) else ""


def ev(node, rec):
    t = node[0]
    if t == "field":
        v = lookup(rec, node[1])
        return None if isinstance(v, (dict, list)) else (canon(v) if is_num(v) else v)
    if t == "lit":
        return canon(node[1])
    if t == "not":
        v = ev(node[1], rec)
        return None if not isinstance(v, bool) else (not v)
    if t in ("and", "or"):
        a, b = ev(node[1], rec), ev(node[2], rec)
        a = a if isinstance(a, bool) else None
        b = b if isinstance(b, bool) else None
        win = t == "or"
        if a is win or b is win:
            return win
        if a is None or b is None:
            return None
        return not win
    if t == "cmp":
        a, b = ev(node[2], rec), ev(node[3], rec)
        if a is None or b is None:
            return None
        return compare(node[1], a, b)
    if t == "in":
        a = ev(node[1], rec)
        if a is None:
            return None
        return any(x is not None and compare("==", a, x) for x in node[2])
    if t == "arith":
        return arith(node[1], ev(node[2], rec), ev(node[3], rec))
    if t == "neg":
        a = ev(node[1], rec)
        return -a if is_num(a) else None
    if t == "case":
        # The first arm whose condition is true; null and false pass on; a condition of another
        # type makes the case null (a mismatch); no else: null.
        for cond, value in node[1]:
            c = ev(cond, rec)
            if c is not None and not isinstance(c, bool):
                return None
            if c is True:
                return ev(value, rec)
        return ev(node[2], rec) if node[2] is not None else None
    if t == "cat":
        parts = [ev(x, rec) for x in node[1]]
        if not all(isinstance(p, str) for p in parts):
            return None  # null, or not a string (a mismatch)
        return "".join(parts)
    if t == "fn":
        name, args = node[1], [ev(x, rec) for x in node[2]]
        if name == "exists":
            return args[0] is not None or ev_raw_exists(node[2][0], rec)
        if name == "if":
            c = ev(node[2][0], rec)
            if c is not None and not isinstance(c, bool):
                return None  # a mismatch
            return ev(node[2][1] if c is True else node[2][2], rec)
        if name == "coalesce":
            for a in node[2]:
                v = ev(a, rec)
                if v is not None:
                    return v
            return None
        if any(a is None for a in args):
            return None
        if name in ("startswith", "endswith", "contains"):
            if not all(isinstance(a, str) for a in args):
                return None
            s, x = args
            return s.startswith(x) if name == "startswith" else s.endswith(x) if name == "endswith" else x in s
        if name in ("floor", "ceil", "round", "abs") and len(args) == 1:
            x = args[0]
            if not is_num(x):
                return None
            if isinstance(x, int):
                return abs(x) if name == "abs" else x
            r = {"floor": math.floor, "ceil": math.ceil, "abs": abs,
                 "round": round_half_away}[name](x)
            return canon(float(r))
        if name in ("lower", "upper"):
            s = args[0]
            if not isinstance(s, str):
                return None
            return "".join(ch.lower() if name == "lower" and "A" <= ch <= "Z" else
                           ch.upper() if name == "upper" and "a" <= ch <= "z" else ch for ch in s)
        if name == "len":
            return len(args[0]) if isinstance(args[0], str) else None
        if name == "round":  # with digits (an integer literal)
            return round_digits(args[0], args[1]) if is_num(args[0]) else None
        if name in ("regexp_replace", "regexp_extract", "split_part", "concat"):
            n = len(args) if name == "concat" else 2  # the index or group is a number literal
            if not all(isinstance(a, str) for a in args[:n]):
                return None
            if name == "regexp_replace":
                return regexp_replace(*args)
            if name == "regexp_extract":
                m = re.search(args[1], args[0])
                return None if m is None else m.group(args[2] if len(args) > 2 else 0) or ""
            if name == "split_part":
                return split_part(*args)
            return "".join(args)
    raise ValueError(node)


def ev_raw_exists(path_node, rec):
    # exists() of an object or array value: present and not null.
    return lookup(rec, path_node[1]) is not None


# ---- random expressions -------------------------------------------------------------------

def literal(rng):
    return rng.choice([0, 1, 2, -3, 2.5, 100, "x", "ab", "AB", "", True, False, None, 1.0])


def lit_text(v):
    if isinstance(v, float) and v.is_integer() and random.random() < 0.3:
        return "%de0" % int(v)  # another spelling of the same number
    return json.dumps(v)


def operand(rng, depth):
    r = rng.random()
    if r < 0.45 or depth <= 0:
        return ("field", rng.choice(FIELDS)) if rng.random() < 0.7 else ("lit", literal(rng))
    if r < 0.65:
        return ("arith", rng.choice("+-*/%"), operand(rng, depth - 1), operand(rng, depth - 1))
    if r < 0.72:
        return ("neg", operand(rng, depth - 1))
    if r < 0.86:
        name = rng.choice(["floor", "ceil", "round", "abs", "lower", "upper", "len"])
        return ("fn", name, [operand(rng, depth - 1)])
    return key_function(rng, depth)


# Patterns that mean the same to RE2 and to Python's re over these strings (no newlines), with
# their number of groups; replacements in RE2's rewrite syntax.
PATTERNS = [("[0-9]+", 0), ("a", 0), ("b*", 0), ("^a", 0), ("(a)(b)?", 2), ("x*", 0), ("", 0),
            ("[a-z]+$", 0), ("(A|b)+", 1), ("/([0-9]+)", 1)]
REPLACEMENTS = [(":id", 0), ("", 0), ("<\\0>", 0), ("\\1-", 1), ("\\\\", 0)]


def key_function(rng, depth):
    """One of the functions of issue 32: regexp_replace, regexp_extract, if, coalesce, split_part,
    concat, round with digits, case when ... end, and ||."""
    name = rng.choice(["regexp_replace", "regexp_extract", "if", "coalesce", "split_part", "concat",
                       "round", "case", "||"])
    sub = lambda: operand(rng, depth - 1)
    if name == "case":
        arms = [(predicate(rng, depth - 1), sub()) for _ in range(rng.randrange(1, 4))]
        return ("case", arms, sub() if rng.random() < 0.6 else None)
    if name == "||":
        return ("cat", [sub() for _ in range(rng.randrange(2, 4))])
    if name in ("regexp_replace", "regexp_extract"):
        pattern, groups = rng.choice(PATTERNS)
        if name == "regexp_replace":
            repl = rng.choice([r for r, g in REPLACEMENTS if g <= groups])
            return ("fn", name, [sub(), ("lit", pattern), ("lit", repl)])
        group = [("lit", rng.randrange(0, groups + 1))] if rng.random() < 0.6 else []
        return ("fn", name, [sub(), ("lit", pattern)] + group)
    if name == "if":
        return ("fn", name, [predicate(rng, depth - 1), sub(), sub()])
    if name == "coalesce":
        return ("fn", name, [sub() for _ in range(rng.randrange(1, 4))])
    if name == "split_part":
        sep = ("lit", rng.choice(["a", "b", "", "ab", "/"])) if rng.random() < 0.8 else sub()
        return ("fn", name, [sub(), sep, ("lit", rng.choice([1, 2, 3, -1, -2]))])
    if name == "concat":
        return ("fn", name, [sub() for _ in range(rng.randrange(1, 4))])
    return ("fn", name, [sub(), ("lit", rng.randrange(-2, 3))])


def predicate(rng, depth):
    r = rng.random()
    if depth > 0 and r < 0.25:
        return (rng.choice(["and", "or"]), predicate(rng, depth - 1), predicate(rng, depth - 1))
    if depth > 0 and r < 0.32:
        return ("not", predicate(rng, depth - 1))
    if r < 0.4:
        return ("in", operand(rng, depth - 1), [literal(rng) for _ in range(rng.randrange(0, 4))])
    if r < 0.5:
        return ("fn", rng.choice(["startswith", "endswith", "contains"]),
                [operand(rng, depth - 1), ("lit", rng.choice(["", "a", "b", "x", "AB"]))])
    if r < 0.55:
        return ("fn", "exists", [("field", rng.choice(FIELDS))])
    return ("cmp", rng.choice(["==", "!=", "<", "<=", ">", ">="]), operand(rng, depth - 1),
            operand(rng, depth - 1))


def text(node, rng):
    t = node[0]
    sp = " " if rng.random() < 0.8 else ""
    if t == "field":
        return rng.choice(PATHS[node[1]][1])
    if t == "lit":
        v = node[1]
        s = lit_text(v)
        return "(%s)" % s if s.startswith("-") else s
    if t == "not":
        return "not (%s)" % text(node[1], rng)
    if t in ("and", "or"):
        return "(%s) %s (%s)" % (text(node[1], rng), t, text(node[2], rng))
    if t == "cmp":
        return "(%s)%s%s%s(%s)" % (text(node[2], rng), sp, node[1], sp, text(node[3], rng))
    if t == "in":
        return "(%s) in [%s]" % (text(node[1], rng), ", ".join(json.dumps(x) for x in node[2]))
    if t == "arith":
        return "(%s)%s%s%s(%s)" % (text(node[2], rng), sp, node[1], sp, text(node[3], rng))
    if t == "neg":
        return "-(%s)" % text(node[1], rng)
    if t == "fn":
        return "%s(%s)" % (node[1], ", ".join(text(a, rng) for a in node[2]))
    if t == "case":
        kw = (lambda w: w.upper()) if rng.random() < 0.5 else (lambda w: w)
        s = kw("case")
        for cond, value in node[1]:
            s += " %s (%s) %s (%s)" % (kw("when"), text(cond, rng), kw("then"), text(value, rng))
        if node[2] is not None:
            s += " %s (%s)" % (kw("else"), text(node[2], rng))
        return s + " " + kw("end")
    if t == "cat":
        return (sp + "||" + sp).join("(%s)" % text(a, rng) for a in node[1])
    raise ValueError(node)


def make_events(rng, n):
    out = []
    for i in range(n):
        rec = {"ts": 1714557600 + i, "id": i}
        for f in ("a", "b", "e"):
            r = rng.random()
            if r < 0.15:
                continue  # absent
            if r < 0.25:
                rec[f] = None
            elif r < 0.55:
                rec[f] = rng.randrange(-4, 6)
            elif r < 0.65:
                rec[f] = rng.choice([2.5, -0.5, 1.0, 100.25])
            elif r < 0.9:
                rec[f] = rng.choice(["", "a", "ab", "AB", "xab", "b", "aXb", "a1bb22", "/x/12/a"])
            else:
                rec[f] = rng.choice([True, False])
        if rng.random() < 0.7:
            rec["c"] = {"d": rng.choice([0, 1, 2, "ab", None, 2.5])}
        if rng.random() < 0.6:
            rec["x.y"] = rng.choice([0, 1, 2, "ab", None, 2.5])
        r = rng.random()
        if r < 0.6:
            rec["arr"] = [rng.choice([0, 1, 2, "ab", None, 2.5]) for _ in range(rng.randrange(0, 4))]
        elif r < 0.7:
            rec["arr"] = rng.choice(["ab", 1, {"0": 1}])  # not an array: every index is null
        out.append(rec)
    return out


def main():
    binary, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    events = make_events(rng, 200)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "in.ndjson")
        with open(path, "w") as f:
            f.write("".join(json.dumps(e) + "\n" for e in events))
        base = [binary, "-q", "--time-format", "epoch_s", "--window", "tumbling:1d", "--by", "id"]
        for i in range(count):
            as_key = i % 2 == 1
            node = operand(rng, 3) if as_key else predicate(rng, 3)
            expr = text(node, rng)
            args = base + (["--by", "v=" + expr] if as_key else ["--where", expr]) + [path]
            got = subprocess.run(args, capture_output=True, text=True)
            problem = None
            if got.returncode != 0:
                problem = "exit %d: %s" % (got.returncode, got.stderr.strip())
            else:
                rows = [json.loads(line) for line in got.stdout.splitlines()]
                if as_key:
                    have = {r["id"]: r["v"] for r in rows}
                    for e in events:
                        want = ev(node, e)
                        if json.dumps(have.get(e["id"], "<no record>")) != json.dumps(want):
                            problem = "event %s: logtide %s, model %s" % (
                                json.dumps(e), json.dumps(have.get(e["id"], "<no record>")), json.dumps(want))
                            break
                else:
                    have = {r["id"] for r in rows}
                    want = {e["id"] for e in events if ev(node, e) is True}
                    if have != want:
                        diff = sorted(have ^ want)[0]
                        e = events[diff]
                        problem = "event %s: logtide %s it, the model (%s) %s it" % (
                            json.dumps(e), "keeps" if diff in have else "drops", json.dumps(ev(node, e)),
                            "keeps" if diff in want else "drops")
            if problem:
                failed += 1
                print("FAIL %s %r\n  %s" % ("--by v=" if as_key else "--where", expr, problem))
            else:
                passed += 1
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
