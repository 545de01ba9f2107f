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
    if t == "fn":
        name, args = node[1], [ev(x, rec) for x in node[2]]
        if name == "exists":
            return args[0] is not None or ev_raw_exists(node[2][0], rec)
        if any(a is None for a in args):
            return None
        if name in ("startswith", "endswith", "contains"):
            if not all(isinstance(a, str) for a in args):
                return None
            s, x = args
            return s.startswith(x) if name == "startswith" else s.endswith(x) if name == "endswith" else x in s
        if name in ("floor", "ceil", "round", "abs"):
            x = args[0]
            if not is_num(x):
                return None
            if isinstance(x, int):
                return abs(x) if name == "abs" else x
            r = {"floor": math.floor, "ceil": math.ceil, "abs": abs,
                 "round": lambda v: math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)}[name](x)
            return canon(float(r))
        if name in ("lower", "upper"):
            s = args[0]
            if not isinstance(s, str):
                return None
            return "".join(ch.lower() if name == "lower" and "A" <= ch <= "Z" else
                           ch.upper() if name == "upper" and "a" <= ch <= "z" else ch for ch in s)
        if name == "len":
            return len(args[0]) if isinstance(args[0], str) else None
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
    name = rng.choice(["floor", "ceil", "round", "abs", "lower", "upper", "len"])
    return ("fn", name, [operand(rng, depth - 1)])


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
                rec[f] = rng.choice(["", "a", "ab", "AB", "xab", "b", "aXb"])
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
