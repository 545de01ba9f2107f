#!/usr/bin/env python3
"""Edits a logtide state file at the SQL level, as a tool other than logtide would, for the
state tests. Rows carry a checksum (src/state/state_store.cc, RowSum: XXH64 of the row's
fields, each preceded by its 32-bit little-endian length, seed 0x4C544944); with --resum the
edited rows get a valid one, as if another program that knows the format wrote them, and so
does the checkpoint's binding (meta "binding", format 3: its grammar is in state_store.cc).

  state_rows.py FILE check                       exit 0 when every row's sum is right
  state_rows.py FILE set-version SECTION N [--resum]
  state_rows.py FILE delete-section SECTION
  state_rows.py FILE add-section SECTION N DATA  (with a valid checksum)
  state_rows.py FILE zone-db VERSION | --drop    the "windows" section's recorded zone database
                                                 (window_operator.h): VERSION in its place, or
                                                 the zone block dropped, as format 4 (logtide
                                                 before the record); with valid checksums
"""
import sqlite3
import struct
import sys

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def xxh64(data, seed):
    def rnd(acc, lane):
        return (rotl((acc + lane * P2) & M, 31) * P1) & M

    def merge(acc, v):
        return (((acc ^ rnd(0, v)) * P1) + P4) & M

    n, i = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed & M, (seed - P1) & M]
        while i + 32 <= n:
            for j in range(4):
                v[j] = rnd(v[j], struct.unpack_from("<Q", data, i + 8 * j)[0])
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v:
            h = merge(h, x)
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 8 <= n:
        h ^= rnd(0, struct.unpack_from("<Q", data, i)[0])
        h = (rotl(h, 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * P1) & M
        h = (rotl(h, 23) * P2 + P3) & M
        i += 4
    while i < n:
        h ^= (data[i] * P5) & M
        h = (rotl(h, 11) * P1) & M
        i += 1
    h ^= h >> 33
    h = (h * P2) & M
    h ^= h >> 29
    h = (h * P3) & M
    h ^= h >> 32
    return h


def row_sum(*fields):
    buf = b"".join(struct.pack("<I", len(f)) + f for f in fields)
    h = xxh64(buf, 0x4C544944)
    return h - (1 << 64) if h >= 1 << 63 else h


def bind_term(job, n, s):
    return xxh64(struct.pack("<QQq", job, n, s), 0x4C544944)


def rebind(db):
    """Recomputes the binding's section count and digest from the sections, as logtide would."""
    row = db.execute("SELECT value FROM meta WHERE key = 'binding'").fetchone()
    if row is None:  # format 2: no binding
        return
    f = b(row[0]).decode().split(" ")
    job, n = int(f[1], 16), int(f[2])
    sums = [s for (s,) in db.execute("SELECT sum FROM sections")]
    f[4], f[5] = str(len(sums)), "%016x" % (sum(bind_term(job, n, s) for s in sums) & M)
    v = " ".join(f).encode()
    db.execute("UPDATE meta SET value = ?, sum = ? WHERE key = 'binding'", (v, row_sum(b"binding", v)))


def b(x):
    return x.encode() if isinstance(x, str) else bytes(x)


def main():
    path, cmd = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(path)
    if cmd == "check":
        bad = 0
        for k, v, s in db.execute("SELECT key, value, sum FROM meta"):
            bad += row_sum(b(k), b(v)) != s
        for n, ver, d, s in db.execute("SELECT name, version, data, sum FROM sections"):
            bad += row_sum(b(n), str(ver).encode(), b(d)) != s
        for op, k, v, s in db.execute("SELECT op, k, v, sum FROM window_log"):
            bad += row_sum(bytes([op]), b(k), b(v)) != s
        sys.exit(1 if bad else 0)
    if cmd == "set-version":
        name, version = sys.argv[3], int(sys.argv[4])
        (data,) = db.execute("SELECT data FROM sections WHERE name = ?", (name,)).fetchone()
        s = row_sum(b(name), str(version).encode(), b(data)) if "--resum" in sys.argv else 0
        db.execute("UPDATE sections SET version = ?, sum = ? WHERE name = ?", (version, s, name))
        if "--resum" in sys.argv:
            rebind(db)
    elif cmd == "add-section":
        name, version, data = sys.argv[3], int(sys.argv[4]), sys.argv[5].encode()
        db.execute("INSERT INTO sections(name, version, data, sum) VALUES(?, ?, ?, ?)",
                   (name, version, data, row_sum(b(name), str(version).encode(), data)))
        rebind(db)
    elif cmd == "delete-section":
        db.execute("DELETE FROM sections WHERE name = ?", (sys.argv[3],))
        rebind(db)  # a state bound without it: what Restore finds missing
    elif cmd == "zone-db":
        (ver, data) = db.execute("SELECT version, data FROM sections WHERE name = 'windows'").fetchone()
        data = b(data)
        if ver != 5:
            sys.exit("the windows section has format %d, not 5" % ver)
        # i64 watermark, u32 length + zone database version, u32 n + n * (i64 start, i64 end)
        (n,) = struct.unpack_from("<I", data, 8)
        rest = 8 + 4 + n
        (windows,) = struct.unpack_from("<I", data, rest)
        if sys.argv[3] == "--drop":
            ver, data = 4, data[:8] + data[rest + 4 + 16 * windows:]
        else:
            v = sys.argv[3].encode()
            data = data[:8] + struct.pack("<I", len(v)) + v + data[rest:]
        db.execute("UPDATE sections SET version = ?, data = ?, sum = ? WHERE name = 'windows'",
                   (ver, data, row_sum(b"windows", str(ver).encode(), data)))
        rebind(db)
    else:
        sys.exit("unknown command " + cmd)
    db.commit()


if __name__ == "__main__":
    main()
