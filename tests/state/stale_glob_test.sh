#!/usr/bin/env bash
# A cron run whose glob came before a rotation that ran whole before the run opened its files
# (issue 28, item 2): the names it was given hold other files than the glob found, and what a
# rotation moved to names the glob did not give is kept for the next run, which names them:
# no warning, and no byte read twice or left unread. The race is frozen: the names are
# globbed, the rotation made, then logtide runs on the names.
#   copytruncate: app.log copied to app.log.1 and truncated; the run is given app.log only.
#     The copy was made before the run started, so the run cannot tell it from one the job
#     does not name: it says that the copy is not among its inputs (and keeps its position).
#   compress: app.log.1 compressed to app.log.2.gz (through app.log.1.gz), app.log copied to a
#     new app.log.1 and truncated; the run is given app.log and app.log.1.
#   create: three rotations as logrotate's create, compress and delaycompress make them, each
#     after the glob of a run: every name a run is given holds the next content by the time
#     it opens it (the first run, a new job, is given app.log and opens the new, empty one).
#     The second run, given app.log and app.log.1, lists the family again and reads the first
#     content from app.log.2.gz, which the third rotation deletes (lost before: the last check).
# Usage: stale_glob_test.sh LOGTIDE LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
Q=(--window tumbling:10s --by service --agg count --agg 'sum(bytes)' --delay 2s)
# cron NAME...: one --hold run of the job over the names, its exit status in $rc and its
# standard error in err.txt.
cron() {
  "$bin" "${Q[@]}" --state s.db --hold -o out.ndjson "$@" 2> err.txt
  rc=$?
}
# step NAME: the last run exited 0 and warned of nothing.
step() {
  check "$1: exit 0 (was $rc: $(cat err.txt))" test "$rc" = 0
  check "$1: no warning ($(cat err.txt))" test ! -s err.txt
}

# last_run CASE: the run without --hold over app.log* ends the job with the bytes of one run
# over the data in order; then back to the test's folder.
last_run() {
  "$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log* 2> err.txt
  rc=$?
  check "$1: the final run exits 0 (was $rc: $(cat err.txt))" test "$rc" = 0
  check "$1: the output is the bytes of one run over the data in order" cmp -s out.ndjson ../ref.ndjson
  cd .. || exit 2
}

seed=${LOGTIDE_TEST_SEED:-20280606}
echo "seed $seed"
"$gen" --lines 6000 --seed "$seed" --rate-per-s 200 > all.ndjson
for k in 1 2 3; do sed -n "$(( (k - 1) * 2000 + 1 )),$(( k * 2000 ))p" all.ndjson > p$k; done
mkdir ref && cp all.ndjson ref/app.log
(cd ref && "$bin" -q "${Q[@]}" app.log > ../ref.ndjson) || fail "reference run"
check "the reference run wrote records" test -s ref.ndjson

for v in copytruncate compress; do
  rm -rf "$v" && mkdir "$v" && cd "$v" || exit 2
  if [ "$v" = copytruncate ]; then
    cat ../p1 ../p2 > app.log
    cron app.log*
    step "$v: the first run"
    names=(app.log*)
    cp app.log app.log.1 && : > app.log
  else
    cp ../p1 app.log.1 && cp ../p2 app.log
    cron app.log*  # the job's first run: app.log.1 is a generation of app.log
    step "$v: the first run"
    names=(app.log*)
    gzip -c app.log.1 > app.log.1.gz && rm app.log.1 && mv app.log.1.gz app.log.2.gz
    cp app.log app.log.1 && : > app.log
  fi
  cron "${names[@]}"
  if [ "$v" = copytruncate ]; then
    check "$v: the run given app.log: exit 0 (was $rc: $(cat err.txt))" test "$rc" = 0
    check "$v: ... says that the copy app.log.1 is not among its inputs ($(cat err.txt))" \
      grep -q "app.log was truncated in place after a copy of it was made to app.log.1, which is not among this run's inputs" err.txt
  else
    step "$v: the run given the names globbed before the rotation (${names[*]})"
  fi
  cat ../p3 >> app.log
  cron app.log*
  step "$v: the next run over app.log*"
  last_run "$v"
done

# rotate: logrotate's create with compress, delaycompress and rotate 2, step by step.
rotate() {
  rm -f app.log.2.gz
  if [ -e app.log.1 ]; then mv app.log.1 app.log.2 && gzip app.log.2; fi
  mv app.log app.log.1 && : > app.log
}
rm -rf create && mkdir create && cd create || exit 2
cp ../p1 app.log
names=(app.log*)
rotate
cron "${names[@]}"
step "create: the first run, given app.log, which a rotation renamed to app.log.1 before it opened it"
cat ../p2 >> app.log
names=(app.log*)
rotate
cron "${names[@]}"
step "create: the second run, given ${names[*]} (the first content is in app.log.2.gz now)"
cat ../p3 >> app.log
names=(app.log*)
rotate
cron "${names[@]}"
step "create: the third run, given ${names[*]}"
last_run create

finish
