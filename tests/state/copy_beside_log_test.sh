#!/usr/bin/env bash
# A cron run that starts while a rotation has copied a log it never read (issue 28, item 2): the
# copy and its original are both named (app.log*) and hold the same bytes, so one of them is
# read and the other taken as a copy: never both. logrotate's copytruncate copies app.log to
# app.log.1 before it truncates app.log; its compress step writes app.log.1.gz before it
# removes app.log.1. The race is frozen: the files are made as the rotation leaves them at that
# moment, then the runs go on as cron's would, and the output must be the bytes of one run over
# the data in the order it was written.
# Usage: copy_beside_log_test.sh LOGTIDE LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
Q=(--window tumbling:10s --by service --agg count --agg 'sum(bytes)' --delay 2s)
# cron [--final]: one run of the job over app.log* (--hold unless --final), its exit status in
# $rc and its standard error in err.txt.
cron() {
  local hold=(--hold)
  [ "${1:-}" = --final ] && hold=()
  "$bin" "${Q[@]}" --state s.db "${hold[@]}" -o out.ndjson app.log* 2> err.txt
  rc=$?
}
# step NAME: the last cron run exited 0 and warned of nothing.
step() {
  check "$1: exit 0 (was $rc: $(cat err.txt))" test "$rc" = 0
  check "$1: no warning ($(cat err.txt))" test ! -s err.txt
}

seed=${LOGTIDE_TEST_SEED:-20280605}
echo "seed $seed"
"$gen" --lines 6000 --seed "$seed" --rate-per-s 200 > all.ndjson
for k in 1 2 3; do sed -n "$(( (k - 1) * 2000 + 1 )),$(( k * 2000 ))p" all.ndjson > p$k; done
mkdir ref && cp all.ndjson ref/app.log
(cd ref && "$bin" -q "${Q[@]}" app.log > ../ref.ndjson) || fail "reference run"
check "the reference run wrote records" test -s ref.ndjson

# prior: how the state stands before the rotation: "none" (the job's first run comes during the
# rotation) or "empty" (an earlier run read app.log while it was empty, so it is known by its
# device and inode only). copy: what the rotation left when the run started: the whole copy of
# app.log in app.log.1 ("whole"), the copy half written ("half"), or, one rotation later, the
# plain generation app.log.1 beside its compressed copy app.log.1.gz ("gz").
for prior in none empty; do
  for copy in whole half gz; do
    v="$prior-$copy"
    rm -rf "$v" && mkdir "$v" && cd "$v" || exit 2
    : > app.log
    if [ "$prior" = empty ]; then
      cron
      step "$v: the run over the empty log"
    fi
    if [ "$copy" = gz ]; then
      # app.log.1 holds p1 (copied by a rotation no run saw), app.log p2 when the next rotation
      # starts: its compress step has written app.log.1.gz, not yet removed app.log.1.
      cat ../p1 > app.log.1
      cat ../p2 > app.log
      gzip -c app.log.1 > app.log.1.gz
      cron
      step "$v: the run during the compress step"
      rm app.log.1
      mv app.log.1.gz app.log.2.gz
      cp app.log app.log.1 && : > app.log  # the rest of that rotation
    else
      cat ../p1 ../p2 > app.log
      if [ "$copy" = whole ]; then
        cp app.log app.log.1
      else
        head -c $(( $(stat -c %s app.log) / 2 )) app.log > app.log.1
      fi
      cron
      step "$v: the run during the copy"
      cp app.log app.log.1 && : > app.log  # the rest of the rotation
    fi
    cron
    step "$v: the run after the rotation"
    cat ../p3 >> app.log
    cron --final
    step "$v: the final run"
    check "$v: the output is the bytes of one run over the data in order" cmp -s out.ndjson ../ref.ndjson
    cd .. || exit 2
  done
done

finish
