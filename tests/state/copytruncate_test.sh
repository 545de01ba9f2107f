#!/usr/bin/env bash
# A copytruncate rotation in the middle of a --hold run (issue 28, item 2): the log is copied to
# app.log.1 and truncated at an exact checkpoint of the run (a hook of the faults build), the
# writer goes on in the truncated log, and the next cron runs over app.log* must go on in the
# copy where the run stopped and read the truncated log from its start: exit 0, and the bytes
# of one uninterrupted run over the same data. Once with the run going on to its end after the
# rotation, once with it killed right after that checkpoint.
# Usage: copytruncate_test.sh LOGTIDE_FAULTS LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
Q=(--window tumbling:10s --by service --agg count --agg 'sum(bytes)' --agg 'last(path)' --delay 2s --lateness 5s)
# field NAME FILE: the first value of the numeric field NAME in `logtide inspect` of FILE.
field() { "$bin" inspect "$2" | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

seed=${LOGTIDE_TEST_SEED:-20280602}
echo "seed $seed"
"$gen" --lines 12000 --seed "$seed" --rate-per-s 200 --disorder-ms 1500 > all.ndjson
head -n 6000 all.ndjson > a.part              # read by the first run
sed -n '6001,9000p' all.ndjson > b.part       # appended; the rotation comes while it is read
tail -n +9001 all.ndjson > c.part             # written to the truncated log
# The reference: one uninterrupted run over the same data, in order.
mkdir ref && cat a.part b.part c.part > ref/app.log
(cd ref && "$bin" -q "${Q[@]}" app.log > ../ref.ndjson) || fail "reference run"
check "the reference run wrote records" test -s ref.ndjson

for variant in finished killed; do
  rm -rf "$variant" && mkdir "$variant" && cd "$variant" || exit 2
  cp ../a.part app.log
  "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log || fail "$variant: first run exited $?"
  cat ../b.part >> app.log
  # The second run's first checkpoint comes after 1000 of the appended lines: the log is copied
  # and truncated there, before the state is saved.
  at=$(( $(field checkpoints s.db) + 1 ))
  kill_at=()
  [ "$variant" = killed ] && kill_at=(LOGTIDE_TEST_KILL_AT="after-commit:$at")
  exec 3>&2 2>/dev/null  # the shell reports the kill on its own standard error
  env LOGTIDE_TEST_RUN_AT="before-flush:$at" \
    LOGTIDE_TEST_RUN='cp app.log app.log.1 && truncate -s 0 app.log' "${kill_at[@]}" \
    "$bin" -q "${Q[@]}" --state s.db --hold --checkpoint-every 1000 -o out.ndjson app.log 2> err2.txt
  rc=$?
  exec 2>&3 3>&-
  expected=0
  [ "$variant" = killed ] && expected=137
  check "$variant: the run during the rotation exited $expected (was $rc: $(cat err2.txt))" test "$rc" = "$expected"
  check "$variant: the rotation was made" test -s app.log.1 -a ! -s app.log
  check "$variant: the state stands past the first run's bytes" \
    test "$(field offset s.db)" -gt "$(stat -c %s ../a.part)"
  cat ../c.part >> app.log
  # The cron job over every generation (with its warnings), then the run that ends the stream.
  "$bin" "${Q[@]}" --state s.db --hold -o out.ndjson app.log* 2> err3.txt
  rc=$?
  check "$variant: the next --hold run over app.log* exits 0 (was $rc: $(cat err3.txt))" test "$rc" = 0
  check "$variant: ... and warns of no lost bytes" test ! -s err3.txt
  "$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log* 2> err4.txt
  rc=$?
  check "$variant: the final run exits 0 (was $rc: $(cat err4.txt))" test "$rc" = 0
  check "$variant: the output is the bytes of one uninterrupted run" cmp -s out.ndjson ../ref.ndjson
  cd .. || exit 2
done

# The writer appends between the copy and the truncation, and a run reads those lines from the
# log before it is truncated: the copy is shorter than what earlier runs read. The next run
# takes the copy as read (it holds nothing they did not read), says that what was appended
# there after the bytes read was lost by the rotation, and goes on (it was refused with exit 5
# at every run, issue 28 item 2).
rm -rf appended && mkdir appended && cd appended || exit 2
cp ../a.part app.log
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log || fail "appended: first run exited $?"
cp app.log app.log.1
cat ../b.part >> app.log
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log || fail "appended: second run exited $?"
: > app.log
cat ../c.part >> app.log
"$bin" "${Q[@]}" --state s.db --hold -o out.ndjson app.log* 2> err3.txt
rc=$?
check "appended: the run over app.log* exits 0 (was $rc: $(cat err3.txt))" test "$rc" = 0
check "appended: ... and says what the rotation may have lost ($(cat err3.txt))" \
  grep -q "app.log.1 (a copy of app.log that a copytruncate rotation made, $(stat -c %s ../a.part) bytes) is shorter than the $(( $(stat -c %s ../a.part) + $(stat -c %s ../b.part) )) bytes earlier runs read" err3.txt
"$bin" "${Q[@]}" --state s.db -o out.ndjson app.log* 2> err4.txt
rc=$?
check "appended: the final run exits 0 (was $rc: $(cat err4.txt))" test "$rc" = 0
check "appended: ... and warns of nothing ($(cat err4.txt))" test ! -s err4.txt
check "appended: the output is the bytes of one uninterrupted run" cmp -s out.ndjson ../ref.ndjson
cd .. || exit 2

finish
