#!/usr/bin/env python3
"""A reference model of logtide's semantics (man/logtide.1, SEMANTICS), written from the spec and
deliberately naive: every window is materialised with the list of its events, no panes, no timers.
differential_test.py runs it against the binary on random inputs.

Supports: tumbling/sliding/session windows, --by (one field), --delay, --lateness, --emit
final|update, --early, several inputs read watermark-aligned, and the aggregates count, sum, min, max, avg,
count_distinct, first, last over fields "v" and "u". Values are chosen so that float sums are exact.
The sketches are modelled by their exact answers: quantile(f, Q) as the value of rank
ceil(Q * n), 1-based (the caller allows its 1%), approx_count_distinct as count_distinct (exact
below 1024 values) and top_k(f, K) as exact counts with error 0 (exact below 64 values).
"""
import datetime
import json
import math

NS = 1_000_000_000
INF = float("inf")


def rfc3339(t):
    secs, frac = divmod(t, NS)
    base = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
    s = base.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        if frac % 1_000_000 == 0:
            s += ".%03d" % (frac // 1_000_000)
        elif frac % 1000 == 0:
            s += ".%06d" % (frac // 1000)
        else:
            s += ".%09d" % frac
    return s + "Z"


def key_rank(v):
    if v is None:
        return (0, 0)
    if v is False:
        return (1, 0)
    if v is True:
        return (2, 0)
    if isinstance(v, (int, float)):
        return (3, v)
    if isinstance(v, str):
        return (4, v.encode())
    return (5, json.dumps(canonical(v), separators=(",", ":")).encode())


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def fmt_num(x):
    if isinstance(x, float) and x.is_integer() and -2**63 <= x < 2**63:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


def quantile_rank(q, n):
    """The nearest rank, ceil(q n), 0-based: SQL's percentile_disc (in DuckDB's arithmetic)."""
    return min(max(1, n - math.floor(n - n * q)), n) - 1


def canonical(v):
    """A value as logtide writes it: integral numbers within 64 bits as integers, objects with
    their keys sorted, at any depth."""
    if isinstance(v, float) and v.is_integer() and -2**63 <= v < 2**63:
        return int(v)
    if isinstance(v, dict):
        return {k: canonical(v[k]) for k in sorted(v, key=lambda k: k.encode())}
    if isinstance(v, list):
        return [canonical(x) for x in v]
    return v


def distinct_key(v):
    if num(v):
        return ("n", float(v))
    if isinstance(v, (dict, list)):
        return ("raw", json.dumps(canonical(v), separators=(",", ":")))
    return (type(v).__name__, v)


def aggregate(events, aggs):
    """events: list of (t, seq, record). Returns the ordered output fields."""
    out = []
    for name, fn, field in aggs:
        vals = [(t, seq, r.get(field)) for t, seq, r in events]
        nonnull = [(t, seq, v) for t, seq, v in vals if v is not None]
        nums = [v for _, _, v in nonnull if num(v)]
        if fn == "count":
            res = str(len(events))
        elif fn == "sum":
            res = "null" if not nums else fmt_num(sum(nums) if any(isinstance(v, float) for v in nums) else sum(nums))
        elif fn == "min":
            res = "null" if not nums else fmt_num(min(nums))
        elif fn == "max":
            res = "null" if not nums else fmt_num(max(nums))
        elif fn == "avg":
            res = "null" if not nums else fmt_num(float(sum(nums)) / len(nums))
        elif fn in ("count_distinct", "approx_count_distinct"):
            res = str(len({distinct_key(v) for _, _, v in nonnull}))
        elif fn.startswith("quantile:"):
            q = float(fn.split(":")[1])
            ranked = sorted(nums)
            res = "null" if not nums else fmt_num(ranked[quantile_rank(q, len(nums))])
        elif fn.startswith("top_k:"):
            k = int(fn.split(":")[1])
            counts, first_seen = {}, {}
            for _, _, v in nonnull:
                counts[distinct_key(v)] = counts.get(distinct_key(v), 0) + 1
                first_seen.setdefault(distinct_key(v), canonical(v))
            top = sorted(counts, key=lambda d: (-counts[d], key_rank(first_seen[d])))[:k]
            res = "[" + ",".join('{"value":%s,"count":%d,"error":0}' % (
                json.dumps(first_seen[d], separators=(",", ":")), counts[d]) for d in top) + "]"
        elif fn == "first":
            res = "null" if not nonnull else json.dumps(min(nonnull, key=lambda x: (x[0], x[1]))[2])
        elif fn == "last":
            res = "null" if not nonnull else json.dumps(max(nonnull, key=lambda x: (x[0], x[1]))[2])
        out.append((name, res))
    return out


class Model:
    def __init__(self, kind, size, slide, gap, delay, lateness, emit, by, aggs, inputs, early=0):
        self.kind, self.size, self.slide, self.gap = kind, size, slide, gap
        self.early = early  # --early: provisional records at start + k*early while open
        self.delay, self.lateness, self.emit, self.by, self.aggs = delay, lateness, emit, by, aggs
        self.W = -INF
        self.out = []
        self.late = 0
        # (input, line number, event time, watermark, missed), in reading order: missed is None
        # for a late event, and (windows, [(start, end) of each window missed]) for a partly
        # late one (added to some of its windows, too late for the others).
        self.late_events = []
        self.missed = None  # what add() found of the event it took last
        self.maxes = [-INF] * inputs
        self.finished = [False] * inputs
        # fixed windows: (start, end, key) -> {"events": [...], "fired": bool, "rev": int}
        self.windows = {}
        # sessions: key -> list of {"start","end","events","rev"}
        self.sessions = {}

    # -- helpers ---------------------------------------------------------------------------
    def record(self, start, end, key, events, rev, phase="on_time", final=False):
        fields = [("window_start", json.dumps(rfc3339(start))), ("window_end", json.dumps(rfc3339(end)))]
        if self.by:
            fields.append((self.by, json.dumps(key)))
        fields += aggregate(events, self.aggs)
        if self.emit == "update" or self.early:
            fields += [("revision", str(rev)), ("phase", json.dumps(phase)), ("final", "true" if final else "false")]
        return "{" + ",".join("%s:%s" % (json.dumps(k), v) for k, v in fields) + "}"

    def next_early(self, start, w_old):
        """The first start + k*early (k >= 1) after the watermark w_old."""
        if w_old < start:
            return start + self.early
        return start + ((w_old - start) // self.early + 1) * self.early

    def fire_time(self, end):
        return end + self.lateness if self.emit == "final" else end

    def late_window(self, end):
        return self.W >= end + self.lateness

    def on_time_is_final(self):
        # The on-time record is a window's last in final mode, and without lateness; otherwise
        # a closing record follows once the window is late.
        return self.emit == "final" or self.lateness == 0

    def fixed_windows(self, t):
        starts = []
        s = (t // self.slide) * self.slide
        while s > t - self.size:
            starts.append(s)
            s -= self.slide
        return sorted((s, s + self.size) for s in starts)

    # -- one event ------------------------------------------------------------------------
    def add(self, t, seq, rec):
        key = rec.get(self.by) if self.by else None
        ev = (t, seq, rec)
        self.missed = None
        if self.kind != "session":
            windows = self.fixed_windows(t)
            accepted = [w for w in windows if not self.late_window(w[1])]
            if not accepted:
                self.late += 1
                return False
            if len(accepted) < len(windows):
                self.missed = (len(windows), [w for w in windows if self.late_window(w[1])])
            revs = []
            for (s, e) in accepted:
                st = self.windows.setdefault((s, e, key_rank(key), key), {"events": [], "fired": False, "rev": -1})
                st["events"].append(ev)
                st["changed"] = True
                if self.emit == "update" and e <= self.W:
                    st["rev"] += 1
                    st["fired"] = True
                    revs.append(self.record(s, e, key, st["events"], st["rev"], "late"))
            self.out += revs
            return True
        lst = self.sessions.setdefault(key, [])
        start, end = t, t + self.gap
        touching = [s for s in lst if s["start"] <= end and s["end"] >= start]
        for s in touching:
            start, end = min(start, s["start"]), max(end, s["end"])
        if self.late_window(end):
            self.late += 1
            if not lst:
                del self.sessions[key]
            return False
        merged = {"start": start, "end": end, "events": [ev], "rev": -1, "changed": True}
        for s in touching:
            merged["events"] += s["events"]
            merged["rev"] = max(merged["rev"], s["rev"])
            lst.remove(s)
        lst.append(merged)
        if self.emit == "update" and end <= self.W:
            merged["rev"] += 1
            merged["changed"] = False
            self.out.append(self.record(start, end, key, merged["events"], merged["rev"], "late"))
            merged["emitted_end"] = end
        return True

    # -- the watermark --------------------------------------------------------------------
    def advance(self):
        w = INF
        for m, f in zip(self.maxes, self.finished):
            if not f:
                w = min(w, m - self.delay)
        if w <= self.W:
            return
        w_old, self.W = self.W, w
        due = []
        if self.kind != "session":
            for (s, e, kr, key), st in list(self.windows.items()):
                # Early: the window is still open and the watermark passed one of its early
                # times or more: one record if the key changed since its last.
                if self.early and w < e and st["changed"]:
                    t = self.next_early(s, w_old)
                    if t <= w:
                        st["rev"] += 1
                        st["changed"] = False
                        due.append((t, e, s, kr, self.record(s, e, key, st["events"], st["rev"], "early")))
                if not st["fired"] and self.fire_time(e) <= w:
                    st["fired"] = True
                    st["rev"] += 1
                    due.append((self.fire_time(e), e, s, kr, self.record(
                        s, e, key, st["events"], st["rev"], "on_time", self.on_time_is_final())))
                if self.late_window(e):
                    if not self.on_time_is_final():
                        st["rev"] += 1
                        due.append((e + self.lateness, e, s, kr, self.record(
                            s, e, key, st["events"], st["rev"], "late", True)))
                    del self.windows[(s, e, kr, key)]
        else:
            for key, lst in list(self.sessions.items()):
                for s in list(lst):
                    if self.early and w < s["end"] and s["changed"]:
                        t = self.next_early(s["start"], w_old)
                        if t <= w:
                            s["rev"] += 1
                            s["changed"] = False
                            due.append((t, s["end"], s["start"], key_rank(key), self.record(
                                s["start"], s["end"], key, s["events"], s["rev"], "early")))
                    if self.fire_time(s["end"]) <= w and s.get("emitted_end") != s["end"]:
                        s["rev"] += 1
                        s["emitted_end"] = s["end"]
                        due.append((self.fire_time(s["end"]), s["end"], s["start"], key_rank(key), self.record(
                            s["start"], s["end"], key, s["events"], s["rev"], "on_time", self.on_time_is_final())))
                    if self.late_window(s["end"]):
                        if not self.on_time_is_final():
                            s["rev"] += 1
                            due.append((s["end"] + self.lateness, s["end"], s["start"], key_rank(key), self.record(
                                s["start"], s["end"], key, s["events"], s["rev"], "late", True)))
                        lst.remove(s)
                if not lst:
                    del self.sessions[key]
        # In the order they became due, then by window end, start and key.
        due.sort(key=lambda d: (d[0], d[1], d[2], d[3]))
        self.out += [d[4] for d in due]

    def run(self, inputs):
        """inputs: list of lists of (t, record). Reads them watermark-aligned."""
        pos = [0] * len(inputs)
        seq = 0
        while True:
            live = [i for i in range(len(inputs)) if not self.finished[i]]
            if not live:
                break
            i = min(live, key=lambda j: (self.maxes[j], j))
            if pos[i] == len(inputs[i]):
                self.finished[i] = True
                self.advance()
                continue
            t, rec = inputs[i][pos[i]]
            pos[i] += 1
            seq += 1
            if not self.add(t, seq, rec):
                self.late_events.append((i, pos[i], t, self.W, None))
            elif self.missed is not None:
                self.late_events.append((i, pos[i], t, self.W, self.missed))
            self.maxes[i] = max(self.maxes[i], t)
            self.advance()
        return self.out


def same_records(expected, got, quantile_fields, distinct_fields):
    """Whether the NDJSON text got holds the expected records, field by field and in order, where
    a field in quantile_fields may be off by 1% of the exact value and one in distinct_fields by
    3% (a HyperLogLog estimate past its exact range: 3.7 standard errors)."""
    if expected == got:
        return True
    want, have = expected.splitlines(), got.splitlines()
    if len(want) != len(have):
        return False
    for w, h in zip(want, have):
        w, h = json.loads(w), json.loads(h)
        if list(w) != list(h):
            return False
        for field, exact in w.items():
            tolerance = 0.01 if field in quantile_fields else 0.03 if field in distinct_fields else None
            if tolerance is not None and num(exact) and num(h[field]):
                if abs(h[field] - exact) > tolerance * abs(exact) + 1e-12:
                    return False
            elif json.dumps(h[field]) != json.dumps(exact):  # as text: true is not 1
                return False
    return True


# -- calendar windows (--tz), from Python's zoneinfo ---------------------------------------------
# Written from man/logtide.1 (TIME ZONES) alone: a window bound is a local wall-clock time taken as
# the first instant at which the local clock shows it or later.

def local_of(u, zone):
    """The local wall-clock time (naive datetime) at instant u (whole seconds)."""
    import zoneinfo  # noqa: F401
    return datetime.datetime.fromtimestamp(u, datetime.timezone.utc).astimezone(zone).replace(tzinfo=None)


def first_instant(c, zone):
    """The first instant (seconds) at which the local clock in zone shows c (naive) or later."""
    u0 = int(c.replace(tzinfo=zone, fold=0).timestamp())
    u1 = int(c.replace(tzinfo=zone, fold=1).timestamp())
    lo, hi = min(u0, u1), max(u0, u1)
    if local_of(lo, zone) >= c:
        return lo  # unique, or the earlier of a repeated time
    # Skipped: in [lo, hi] the clock only jumps forward once; find its first second >= c.
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if local_of(mid, zone) >= c:
            hi = mid
        else:
            lo = mid
    return hi


def plain_bounds(c, unit, n):
    """The local wall-clock bounds [lo, hi) of the calendar window holding local time c."""
    if unit == "d":
        d = (c.date() - datetime.date(1970, 1, 1)).days // n * n
        lo = datetime.datetime(1970, 1, 1) + datetime.timedelta(days=d)
        return lo, lo + datetime.timedelta(days=n)
    if unit == "w":  # ISO weeks from Monday 1969-12-29
        d = (c.date() - datetime.date(1969, 12, 29)).days // (7 * n) * (7 * n)
        lo = datetime.datetime(1969, 12, 29) + datetime.timedelta(days=d)
        return lo, lo + datetime.timedelta(days=7 * n)
    if unit == "mo":
        m = ((c.year - 1970) * 12 + c.month - 1) // n * n
        m2 = m + n
        return (datetime.datetime(1970 + m // 12, m % 12 + 1, 1), datetime.datetime(1970 + m2 // 12, m2 % 12 + 1, 1))
    if unit == "wall":  # n seconds dividing a day, on the wall clock from local midnight
        midnight = datetime.datetime(c.year, c.month, c.day)
        k = int((c - midnight).total_seconds()) // n * n
        lo = midnight + datetime.timedelta(seconds=k)
        return lo, lo + datetime.timedelta(seconds=n)
    raise ValueError(unit)


def calendar_window(t, zone, unit, n, offset=0):
    """The calendar window [start, end) in ns holding t (ns): unit "d", "w", "mo" (n of them),
    "wall" (n seconds over an hour), or "grid" (n ns of an hour or less from each local midnight);
    with every local bound moved by offset seconds of local time (the grid's days too)."""
    u = t // NS
    c = local_of(u, zone)
    days = unit == "grid"
    shift = datetime.timedelta(seconds=offset)

    def calendar_bounds(c, unit, n):
        lo, hi = plain_bounds(c - shift, unit, n)
        return lo + shift, hi + shift

    lo, hi = calendar_bounds(c, "d" if days else unit, 1 if days else n)
    start, end = first_instant(lo, zone), first_instant(hi, zone)
    while u >= end:
        lo, hi = calendar_bounds(hi, "d" if days else unit, 1 if days else n)
        start, end = end, first_instant(hi, zone)
    while u < start:
        lo, hi = calendar_bounds(lo - datetime.timedelta(seconds=1), "d" if days else unit, 1 if days else n)
        start, end = first_instant(lo, zone), start
    start, end = start * NS, end * NS
    if days:
        at = start + (t - start) // n * n
        return at, min(at + n, end)
    return start, end
