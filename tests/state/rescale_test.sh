#!/usr/bin/env bash
# Rescaling (issue 30): a state written with N apply threads resumes with M, for any N and M
# (1 included), and the output is the bytes of one uninterrupted run on one thread. A log grows
# in chunks cut in the middle of lines; each --hold run over it draws its own --apply-threads.
# The log is past a megabyte from the first run on, and every run parses on two threads, so the
# runs with 2 or more apply threads apply in parallel on any machine (files of one read buffer,
# or --threads 1, apply on one thread).
# Usage: rescale_test.sh LOGTIDE LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
seed=${LOGTIDE_TEST_SEED:-20261207}
echo "seed $seed"
RANDOM=$seed

"$gen" --lines 60000 --seed 9 --rate-per-s 300 --users 3000 --disorder-ms 1500 --late-fraction 0.01 > all.ndjson
size=$(stat -c %s all.ndjson)
[ "$size" -gt $((4 << 20)) ] || fail "the input is only $size bytes"
threads=(1 2 3 4 7 16)

# Each query shape that applies in parallel: tumbling and sliding windows, final and update
# mode, lateness with late events (update mode with lateness, its revisions written as
# retractions), --early's revisions, sketches, --where, two keys.
queries=(
  "--window tumbling:10s --by user --agg count --agg sum(bytes) --delay 2s --lateness 5s"
  "--window sliding:30s:10s --by service,user --agg count --agg p95(latency_ms) --agg count_distinct(path) --emit update"
  "--window tumbling:20s --by user --agg count --agg max(latency_ms) --early 5s --delay 1s"
  "--window sliding:20s:5s --by service --agg count --agg top_k(user,3) --where status>=400 --lateness 3s"
  "--window tumbling:10s --by user --agg count --agg sum(bytes) --emit update --lateness 5s --delay 1s --changes retract"
)
for q in "${queries[@]}"; do
  read -r -a Q <<< "$q"
  rm -rf run && mkdir run && cp all.ndjson run/app.log
  (cd run && "$bin" -q "${Q[@]}" --threads 1 --late-output ../ref-late.ndjson app.log > ../ref.ndjson) ||
    fail "reference run: $q"
  rm -f run/app.log s.db s.db-wal s.db-shm out.ndjson late.ndjson
  : > run/app.log
  head -c $((1200 << 10)) all.ndjson >> run/app.log
  pos=$((1200 << 10))
  used=""
  while true; do
    n=${threads[$((RANDOM % ${#threads[@]}))]}
    used="$used $n"
    if [ "$pos" -ge "$size" ]; then
      (cd run && "$bin" -q "${Q[@]}" --threads 2 --apply-threads "$n" --state ../s.db --checkpoint-every 3000 \
        -o ../out.ndjson --late-output ../late.ndjson app.log) || fail "final run with $n threads: $q"
      break
    fi
    (cd run && "$bin" -q "${Q[@]}" --threads 2 --apply-threads "$n" --state ../s.db --checkpoint-every 3000 --hold \
      -o ../out.ndjson --late-output ../late.ndjson app.log) || fail "run with $n threads exited $?: $q"
    step=$(( (RANDOM * 32768 + RANDOM) % (3 << 20) + 1 ))
    head -c $((pos + step)) all.ndjson | tail -c +$((pos + 1)) >> run/app.log
    pos=$((pos + step))
  done
  echo "threads:$used; $(wc -l < ref.ndjson) records, $(wc -l < ref-late.ndjson) late"
  check "runs with --apply-threads$used resume each other's state: $q" cmp -s out.ndjson ref.ndjson
  check "and write the same late events: $q" cmp -s late.ndjson ref-late.ndjson
  [ -s ref.ndjson ] || fail "no records: $q"
done

# What inspect says of a state is the same for every number of apply threads that wrote it:
# its open windows and its pending timers (a window's timer counts once, not once per worker
# holding its keys). Sessions too, which apply on one thread.
for q in "${queries[@]}" "--window session:30s --by user --agg count --emit update --lateness 3s"; do
  read -r -a Q <<< "$q"
  rm -rf run && mkdir run && head -c $((2 << 20)) all.ndjson > run/app.log
  facts=""
  for n in 1 2 3 7; do
    rm -f s.db s.db-wal s.db-shm
    (cd run && "$bin" -q "${Q[@]}" --threads 2 --apply-threads "$n" --state ../s.db --hold \
      -o /dev/null app.log) || fail "a --hold run with $n threads: $q"
    said=$("$bin" inspect s.db | python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["open_windows"], j["pending_timers"])')
    [ -n "$facts" ] || facts=$said
    check "inspect says \"$said\" of the state --apply-threads $n wrote, as of 1 thread's (\"$facts\"): $q" \
      test "$said" = "$facts"
  done
  case "$facts" in "0 "* | *" 0") fail "no open windows or no timers to compare: $q" ;; esac
done

# Stops: a run signalled with SIGINT at a random moment stops at a line boundary after a last
# checkpoint (exit 130), or has already finished (exit 0); the next run, with another number of
# apply threads, goes on. In final mode a stop writes no provisional record, so the output is
# the uninterrupted run's whatever the moments.
read -r -a Q <<< "${queries[0]}"
rm -rf run && mkdir run && cp all.ndjson run/app.log
(cd run && "$bin" -q "${Q[@]}" --threads 1 --late-output ../ref-late.ndjson app.log > ../ref.ndjson) ||
  fail "reference run for stops"
rm -f s.db s.db-wal s.db-shm out.ndjson late.ndjson
used=""
stopped=0
for i in 1 2 3 4 5 6; do
  n=${threads[$((RANDOM % ${#threads[@]}))]}
  used="$used $n"
  (cd run && exec "$bin" -q "${Q[@]}" --threads 2 --apply-threads "$n" --state ../s.db \
    --checkpoint-every 3000 -o ../out.ndjson --late-output ../late.ndjson app.log) &
  pid=$!
  sleep "0.0$((RANDOM % 10))"
  kill -INT "$pid" 2> /dev/null
  wait "$pid"
  rc=$?
  [ "$rc" = 130 ] && stopped=$((stopped + 1))
  [ "$rc" = 0 ] || [ "$rc" = 130 ] || fail "stopped run with $n threads exited $rc"
done
n=${threads[$((RANDOM % ${#threads[@]}))]}
(cd run && "$bin" -q "${Q[@]}" --threads 2 --apply-threads "$n" --state ../s.db \
  --checkpoint-every 3000 -o ../out.ndjson --late-output ../late.ndjson app.log) ||
  fail "last run after stops, with $n threads"
echo "stops: threads$used then $n; $stopped of 6 runs stopped by the signal"
check "runs stopped by SIGINT with --apply-threads$used resume each other's state" \
  cmp -s out.ndjson ref.ndjson
check "and write the same late events after stops" cmp -s late.ndjson ref-late.ndjson
finish
