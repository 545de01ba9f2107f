#!/usr/bin/env bash
# A full or read-only filesystem under the outputs and the state (issue 16): on a small tmpfs
# filled up, a run fails with exit 1 and a message naming the file and the reason, its state
# stays intact, and once there is room again the same command resumes and ends byte-identical
# to a run that never failed. Needs root (to mount, in a mount namespace of its own); skipped
# otherwise.
# Usage: disk_test.sh LOGTIDE LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
if [ "$(id -u)" != 0 ]; then echo "skipped: needs root to mount a small tmpfs"; exit 77; fi
# The tmpfs is mounted in a mount namespace of the test's own: the system never sees it, and it
# is gone with the test even if the test is killed.
if [ -z "${LOGTIDE_DISK_TEST_NAMESPACE:-}" ]; then
  if unshare --mount --propagation private true 2> /dev/null; then
    LOGTIDE_DISK_TEST_NAMESPACE=1 exec unshare --mount --propagation private bash "$0" "$@"
  fi
  echo "skipped: cannot make a mount namespace of its own (unshare --mount)"; exit 77
fi
work=$(mktemp -d)
mnt="$work/mnt"
mkdir "$mnt"
if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2> /dev/null; then
  echo "skipped: cannot mount a tmpfs here"; rm -rf "$work"; exit 77
fi
trap 'umount "$mnt" 2> /dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 2
passed=0 failed=0
check() { local name=$1; shift; if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name"; fi; }
intact() { python3 -c "import sqlite3,sys; sys.exit(sqlite3.connect('$1').execute('PRAGMA integrity_check').fetchone()[0] != 'ok')"; }

"$gen" --lines 60000 --seed 3 --users 3000 > in.ndjson
Q=(-q --window tumbling:1s --by user --agg count --checkpoint-every 5000)
"$bin" "${Q[@]}" in.ndjson > want.ndjson
size=$(stat -c %s want.ndjson)
check "the output is larger than the filesystem ($size bytes)" test "$size" -gt 1048576

# The output's filesystem fills up: exit 1, naming the output; the state is intact; with room
# again (the output moved to a larger place, where the next run finds it), the run resumes.
"$bin" "${Q[@]}" --state s.db -o "$mnt/out.ndjson" in.ndjson 2> err.txt
check "output on a full filesystem: exit 1" test $? = 1
check "output on a full filesystem: saying so" grep -q "out.ndjson: No space left on device" err.txt
check "output on a full filesystem: the state is intact" intact s.db
umount "$mnt"; mount -t tmpfs -o size=64m tmpfs "$mnt"
: > "$mnt/out.ndjson"  # (a new, empty filesystem: the output is cut back to what was committed)
"$bin" "${Q[@]}" --state s.db -o "$mnt/out.ndjson" in.ndjson 2> err.txt
rc=$?
# An empty file is shorter than the committed output: refused, not silently restarted.
check "resumed onto an output shorter than committed: refused (exit 5)" test $rc = 5
rm -f s.db* "$mnt/out.ndjson"

# The same with the output kept: fill the filesystem with another file, then free it.
umount "$mnt"; mount -t tmpfs -o size=1m tmpfs "$mnt"
"$bin" "${Q[@]}" --state s.db -o "$mnt/out.ndjson" in.ndjson 2> err.txt
check "output full (2): exit 1" test $? = 1
cp "$mnt/out.ndjson" kept.ndjson
umount "$mnt"; mount -t tmpfs -o size=64m tmpfs "$mnt"
cp kept.ndjson "$mnt/out.ndjson"
"$bin" "${Q[@]}" --state s.db -o "$mnt/out.ndjson" in.ndjson 2> err.txt
check "room again: the same command resumes (exit 0)" test $? = 0
check "room again: byte-identical to a run that never failed" cmp -s "$mnt/out.ndjson" want.ndjson
rm -f s.db* "$mnt/out.ndjson"

# The state's filesystem fills up: exit 1 naming the state file; with room again it resumes.
umount "$mnt"; mount -t tmpfs -o size=256k tmpfs "$mnt"
"$bin" "${Q[@]}" --state "$mnt/s.db" -o out.ndjson in.ndjson 2> err.txt
rc=$?
check "state on a full filesystem: exit 1 (got $rc)" test $rc = 1
check "state on a full filesystem: naming it" grep -q "$mnt/s.db" err.txt
mkdir -p keep && cp "$mnt"/s.db* keep/ 2> /dev/null
umount "$mnt"; mount -t tmpfs -o size=64m tmpfs "$mnt"
cp keep/s.db* "$mnt"/ 2> /dev/null
check "state on a full filesystem: what was committed is intact" intact "$mnt/s.db"
"$bin" "${Q[@]}" --state "$mnt/s.db" -o out.ndjson in.ndjson 2> err.txt
check "room again: resumes (exit 0)" test $? = 0
check "room again: byte-identical" cmp -s out.ndjson want.ndjson
rm -f "$mnt"/s.db* out.ndjson

# A read-only state: refused with a message, nothing written; writable again, it goes on.
head -n 20000 in.ndjson > part.ndjson
"$bin" "${Q[@]}" --state "$mnt/s.db" --hold -o out.ndjson part.ndjson
cp out.ndjson out.before
mount -o remount,ro "$mnt"
"$bin" "${Q[@]}" --state "$mnt/s.db" --hold -o out.ndjson in.ndjson 2> err.txt
rc=$?
check "read-only state: fails (exit $rc)" test $rc != 0
check "read-only state: saying so" grep -qi "read-only\|readonly" err.txt
check "read-only state: the output is as it was" cmp -s out.ndjson out.before
mount -o remount,rw "$mnt"
"$bin" "${Q[@]}" --state "$mnt/s.db" -o out.ndjson in.ndjson 2> err.txt
check "writable again: goes on (exit 0)" test $? = 0
check "writable again: byte-identical" cmp -s out.ndjson want.ndjson

echo "$passed passed, $failed failed"
test "$failed" = 0
