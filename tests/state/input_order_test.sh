#!/usr/bin/env bash
# The watermark's per-input times follow the inputs, not their places on the command line: a
# resumed run that names the same files in another order goes on with each file's own largest
# event time (section "watermark", by the ids of section "inputs"). Two logs, a and b, tumbling
# 10 s windows counted per source, --hold (the watermark is the least of the two largest event
# times):
#   run 1, a.log b.log: a has 0,5,...,55 s, b has 2,12,22 s: the watermark is 22 s, so the
#     windows ending at 10 and 20 s close (a 2, b 1 each);
#   run 2, b.log a.log: b grew by 32 and 42 s: the watermark is 42 s (a's 55, b's 42), so the
#     windows ending at 30 and 40 s close. Had the times followed the places, b would have
#     a's 55 and a b's 22, the watermark would stay at 22 s, and nothing would close;
#   run 3, without --hold: the stream ends, the windows ending at 50 and 60 s close.
# The expected records are written out by hand from the above.
# Usage: input_order_test.sh LOGTIDE
set -u
bin=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

ev() { printf '{"ts":"2024-01-01T00:00:%02dZ","src":"%s"}\n' "$1" "$2"; }
# rec START SRC COUNT: the record of the window [START, START + 10 s).
rec() {
  local end=$(($1 + 10))
  printf '{"window_start":"2024-01-01T00:%02d:%02dZ","window_end":"2024-01-01T00:%02d:%02dZ","src":"%s","count":%d}\n' \
    $(($1 / 60)) $(($1 % 60)) $((end / 60)) $((end % 60)) "$2" "$3"
}
Q=(--window tumbling:10s --by src --agg count --state s.db -o out.ndjson)
for t in 0 5 10 15 20 25 30 35 40 45 50 55; do ev "$t" a; done > a.log
for t in 2 12 22; do ev "$t" b; done > b.log

"$bin" "${Q[@]}" --hold a.log b.log 2> err.txt
check "run 1 exits 0 ($(cat err.txt))" test $? = 0
{ rec 0 a 2; rec 0 b 1; rec 10 a 2; rec 10 b 1; } > want1
check "run 1 closes the windows up to 20 s" cmp -s out.ndjson want1

for t in 32 42; do ev "$t" b; done >> b.log
"$bin" "${Q[@]}" --hold b.log a.log 2> err.txt
check "run 2 exits 0 ($(cat err.txt))" test $? = 0
{ cat want1; rec 20 a 2; rec 20 b 1; rec 30 a 2; rec 30 b 1; } > want2
check "run 2, the inputs in another order, closes the windows up to 40 s" cmp -s out.ndjson want2

"$bin" "${Q[@]}" b.log a.log 2> err.txt
check "run 3 exits 0 ($(cat err.txt))" test $? = 0
{ cat want2; rec 40 a 2; rec 40 b 1; rec 50 a 2; } > want3
check "run 3 ends the job" cmp -s out.ndjson want3
finish
