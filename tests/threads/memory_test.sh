#!/usr/bin/env bash
# With worker threads, what a block's lines parse to stays within a bound of the block's size
# (issue 28 item 9): before, a block of 2 MiB held a 56-byte record per line and a 40-byte
# value per aggregate of each line, so 64 MiB of blank lines took 632 MB with --threads 2 (7 MB
# with one thread) and 1000 count aggregates over 6 MB took 1.5 GB. Each run here must give
# the bytes of --threads 1 and peak under 96 MB: blocks read ahead (2 MiB each, 4 of them for
# --threads 2) and their records (at most twice their size, and vectors that grew by doubling),
# beside what a small run takes (about 20 MB).
# Usage: memory_test.sh LOGTIDE LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
command -v /usr/bin/time > /dev/null || { echo "the test needs /usr/bin/time"; exit 2; }
passed=0 failed=0
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
bound_kb=$((96 * 1024))
# Under AddressSanitizer every allocation carries shadow memory and a quarantine: twice the
# bound and 64 MB more (the unbounded cases took 600 MB to 1.5 GB).
if [ "${LOGTIDE_SANITIZED:-0}" = 1 ]; then bound_kb=$((2 * bound_kb + 65536)); fi

# run NAME logtide-arguments...: --threads 1 and --threads 2 give the same bytes; the second
# peaks under the bound.
run() {
  local name=$1
  shift
  "$bin" -q --threads 1 "$@" > one.out 2> one.err
  local s1=$?
  /usr/bin/time -f '%M' -o rss.txt "$bin" -q --threads 2 "$@" > two.out 2> two.err
  local s2=$?
  local kb
  kb=$(tail -n 1 rss.txt)
  if [ "$s1" != 0 ] || [ "$s2" != 0 ]; then
    fail "$name: exit status $s1 with --threads 1, $s2 with --threads 2"; cat one.err two.err
    return
  fi
  if [ ! -s one.out ] || ! cmp -s one.out two.out; then fail "$name: outputs differ or are empty"; return; fi
  if [ "$kb" -gt "$bound_kb" ]; then fail "$name: peak RSS $kb KB, more than $bound_kb KB"; return; fi
  echo "ok $name: peak RSS $kb KB with --threads 2 (bound $bound_kb KB)"
  passed=$((passed + 1))
}

# 32 MiB of blank lines, then an event.
{ head -c $((32 << 20)) /dev/zero | tr '\0' '\n'; echo '{"ts":"2024-01-01T00:00:00Z"}'; } > blank.ndjson
run "32 MiB of blank lines" --window tumbling:1m blank.ndjson

# 1000 count aggregates over 6 MB of access-log lines.
"$gen" --lines 30000 --seed 28 > log.ndjson
aggs=$(for i in $(seq 1000); do printf 'c%d=count,' "$i"; done)
run "1000 aggregates" --window tumbling:1m --by service --agg "${aggs%,}" log.ndjson

echo "memory_test: $passed passed, $failed failed"
[ "$failed" = 0 ]
