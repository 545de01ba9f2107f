#!/usr/bin/env bash
# A line longer than --max-line-length is a bad line, dropped as it is read (issue 28 item 8):
# a gzip of one 64 MiB string value and the event after it, read as a gzip file, a zstd
# file and standard input, with one thread and with two. Each run reports the line (its
# length, its offset), counts the event after it, and peaks at far less memory than the line:
# before, a line cost about 3 times its length (a 256 MiB value took 3.3 GB). The bound is
# what a run of a small input takes (about 20 MB with threads) plus a few times the limit.
# Then --state over standard input and over a compressed file is resumed after such a line.
# Usage: long_line_test.sh LOGTIDE
set -u
bin=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
for tool in gzip zstd /usr/bin/time; do
  command -v $tool > /dev/null || { echo "the test needs $tool"; exit 2; }
done
passed=0 failed=0
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

value=$((64 << 20))
{
  printf '{"ts":"2024-01-01T00:00:00Z","v":"'
  head -c $value /dev/zero | tr '\0' 'a'
  printf '"}\n{"ts":"2024-01-01T00:00:01Z"}\n'
} | gzip -1 -n > big.gz
# The line: {"ts":"...","v":" (34 bytes), the value, "} (2 bytes).
line=$((34 + value + 2))
gzip -d -c big.gz | zstd -q -1 -c > big.zst

# run NAME LIMIT_BYTES MAX_RSS_KB logtide-arguments... (input on standard input when "-")
run() {
  local name=$1 limit=$2 max_kb=$3
  shift 3
  /usr/bin/time -f '%M' -o rss.txt "$bin" "$@" > out.txt 2> err.txt < stdin.data
  local status=$?
  local kb
  kb=$(tail -n 1 rss.txt)
  if [ "$status" != 0 ]; then fail "$name: exit status $status"; cat err.txt; return; fi
  if [ "$(cat out.txt)" != '{"window_start":"2024-01-01T00:00:00Z","window_end":"2024-01-01T00:01:00Z","count":1}' ]; then
    fail "$name: output"; cat out.txt; return
  fi
  if ! grep -q ":1: bad line skipped: line of $line bytes (from byte 0) is longer than --max-line-length $limit\$" err.txt; then
    fail "$name: bad-line message"; cat err.txt; return
  fi
  # Under AddressSanitizer every allocation carries shadow memory and a quarantine: twice the
  # bound and 64 MB more (before the limit, such a line took gigabytes).
  if [ "${LOGTIDE_SANITIZED:-0}" = 1 ]; then max_kb=$((2 * max_kb + 65536)); fi
  if [ "$kb" -gt "$max_kb" ]; then fail "$name: peak RSS $kb KB, more than $max_kb KB"; return; fi
  echo "ok $name: peak RSS $kb KB (bound $max_kb KB)"
  passed=$((passed + 1))
}

: > stdin.data
# A 1 MiB limit: 20 MB + 8 x 1 MiB.
bound=$((20 * 1024 + 8 * 1024))
for threads in 1 2; do
  run "gzip file, --threads $threads" 1048576 $bound \
    --window tumbling:1m --max-line-length 1M --threads $threads big.gz
  run "zstd file, --threads $threads" 1048576 $bound \
    --window tumbling:1m --max-line-length 1M --threads $threads big.zst
done
gzip -d -c big.gz > stdin.data
for threads in 1 2; do
  run "standard input, --threads $threads" 1048576 $bound \
    --window tumbling:1m --max-line-length 1M --threads $threads -
done
# The default limit, 16 MiB: 20 MB + 4 x 16 MiB, under the line's 64 MiB.
: > stdin.data
for threads in 1 2; do
  run "gzip file, default limit, --threads $threads" 16777216 $((20 * 1024 + 4 * 16384)) \
    --window tumbling:1m --threads $threads big.gz
done

# --state over standard input keeps the hash of every byte consumed, and over a compressed
# file the bytes before its offset: a dropped line's bytes are gone, what the checkpoint needs
# of them is not. A --hold run reads the long line and the event after it; the resumed run,
# given the same bytes and one more event, goes on after them.
for threads in 1 2; do
  rm -f s.db resumed.out
  gzip -d -c big.gz > stdin.data
  "$bin" -q --threads $threads --window tumbling:1m --max-line-length 1M --state s.db --hold \
    -o resumed.out - < stdin.data
  s1=$?
  echo '{"ts":"2024-01-01T00:02:00Z"}' >> stdin.data
  "$bin" -q --threads $threads --window tumbling:1m --max-line-length 1M --state s.db \
    -o resumed.out - < stdin.data 2> resume.err
  s2=$?
  "$bin" -q --threads $threads --window tumbling:1m --max-line-length 1M -o whole.out - < stdin.data
  if [ "$s1" != 0 ] || [ "$s2" != 0 ]; then
    fail "standard input resumed after a dropped line, --threads $threads: exit $s1, $s2"
    cat resume.err
  elif ! cmp -s resumed.out whole.out || [ "$(wc -l < whole.out)" != 2 ]; then
    fail "standard input resumed after a dropped line, --threads $threads: output"
  else
    echo "ok standard input resumed after a dropped line, --threads $threads"
    passed=$((passed + 1))
  fi
done

# A compressed file whose last line is dropped: its checkpoint keeps the bytes before its
# offset, which the resumed run checks.
{ echo '{"ts":"2024-01-01T00:00:01Z"}'; head -c 3000000 /dev/zero | tr '\0' 'q'; echo; } | gzip -n > end.gz
for threads in 1 2; do
  rm -f g.db resumed.out
  "$bin" -q --threads $threads --window tumbling:1m --max-line-length 1M --state g.db --hold \
    -o resumed.out end.gz
  s1=$?
  "$bin" -q --threads $threads --window tumbling:1m --max-line-length 1M --state g.db \
    -o resumed.out end.gz 2> resume.err
  s2=$?
  if [ "$s1" != 0 ] || [ "$s2" != 0 ]; then
    fail "gzip file resumed after its dropped last line, --threads $threads: exit $s1, $s2"
    cat resume.err
  elif [ "$(cat resumed.out)" != '{"window_start":"2024-01-01T00:00:00Z","window_end":"2024-01-01T00:01:00Z","count":1}' ]; then
    fail "gzip file resumed after its dropped last line, --threads $threads: output"
  else
    echo "ok gzip file resumed after its dropped last line, --threads $threads"
    passed=$((passed + 1))
  fi
done

echo "long_line_test: $passed passed, $failed failed"
[ "$failed" = 0 ]
