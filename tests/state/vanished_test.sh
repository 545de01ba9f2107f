#!/usr/bin/env bash
# A generation that a rotation removes between the shell's glob and logtide's open() (issue 28,
# item 4): not an error when the state shows where its content went (every position saved
# under its name was read to its end, or another input continues it, or a compressed copy of it
# is there now); still exit 1 otherwise.
# The race is frozen: the names are globbed, the files changed, then logtide runs on the names.
# Usage: vanished_test.sh LOGTIDE LOGTIDE_GEN
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
Q=(--window tumbling:10s --by service --agg count --agg 'sum(bytes)' --delay 2s)
digest() { sha256sum "$1" | cut -d' ' -f1; }
# cron [NAME...]: one --hold run of the job over the names (app.log* when none), its exit status
# in $rc and its standard error in err.txt.
cron() {
  local names=("$@")
  [ ${#names[@]} -gt 0 ] || names=(app.log*)
  "$bin" "${Q[@]}" --state s.db --hold -o out.ndjson "${names[@]}" 2> err.txt
  rc=$?
}

seed=${LOGTIDE_TEST_SEED:-20280604}
echo "seed $seed"
"$gen" --lines 8000 --seed "$seed" --rate-per-s 200 > all.ndjson
for k in 1 2 3 4; do sed -n "$(( (k - 1) * 2000 + 1 )),$(( k * 2000 ))p" all.ndjson > p$k; done
mkdir ref && cp all.ndjson ref/app.log
(cd ref && "$bin" -q "${Q[@]}" app.log > ../ref.ndjson) || fail "reference run"
check "the reference run wrote records" test -s ref.ndjson

# Three generations (rotate 2), each read to its end by a cron run.
cp p1 app.log
cron
mv app.log app.log.1 && cp p2 app.log
cron
mv app.log.1 app.log.2 && mv app.log app.log.1 && cp p3 app.log
cron
check "setup: the cron runs exited 0 (last: $rc: $(cat err.txt))" test "$rc" = 0
# The next rotation drops app.log.2 after the glob named it.
names=(app.log*)
rm app.log.2
cron "${names[@]}"
check "the oldest generation removed after the glob, read to its end: exit 0 (was $rc: $(cat err.txt))" \
  test "$rc" = 0
check "... without a warning" test ! -s err.txt
mv app.log.1 app.log.2 && mv app.log app.log.1 && cp p4 app.log
cron
check "the next run over app.log* exits 0 (was $rc: $(cat err.txt))" test "$rc" = 0
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log* 2> err.txt
check "the final run exits 0 ($(cat err.txt))" test $? = 0
check "the output is the bytes of one uninterrupted run" cmp -s out.ndjson ref.ndjson

# Mid-rotation (issue 28, item 4): the glob names app.log.2, which no run saw (its content was
# read as app.log), and the compress step replaces it with app.log.2.gz before the open. The
# copy holds its content: no error, no warning, and the next run reads the copy on from there.
rm -f s.db* out.ndjson app.log*
cp p1 app.log
cron
mv app.log app.log.1 && cp p2 app.log
mv app.log.1 app.log.2 && mv app.log app.log.1 && cp p3 app.log
names=(app.log*)
gzip app.log.2
cron "${names[@]}"
check "app.log.2 never seen, compressed after the glob: exit 0 (was $rc: $(cat err.txt))" test "$rc" = 0
check "... without a warning ($(cat err.txt))" test ! -s err.txt
cron
check "the next run over app.log* exits 0 (was $rc: $(cat err.txt))" test "$rc" = 0
check "... without a warning ($(cat err.txt))" test ! -s err.txt
cat p4 >> app.log
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log* 2> err.txt
check "... and the output is the bytes of one uninterrupted run" cmp -s out.ndjson ref.ndjson

# An empty app.log read by a run, then written, rotated and compressed before the next run
# (issue 28, item 4): nothing was left unread, so nothing is reported (its inode, free again,
# may be any other file's now).
rm -f s.db* out.ndjson app.log*
: > app.log
cron
cat p1 >> app.log && mv app.log app.log.1 && cp p2 app.log
# In logrotate's order: the renames, the new log, then the compress step, which frees the inode
# the empty log had.
mv app.log.1 app.log.2 && mv app.log app.log.1 && cp p3 app.log && gzip app.log.2
cron
check "an empty log rotated and compressed between runs: exit 0 (was $rc)" test "$rc" = 0
check "... without a warning ($(cat err.txt))" test ! -s err.txt
cat p4 >> app.log
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log* 2> err.txt
check "... and the output is the bytes of one uninterrupted run" cmp -s out.ndjson ref.ndjson

# Refused as before: a file whose content the state cannot account for.
rm -f s.db* out.ndjson app.log*
cp p1 app.log
cron
cat p2 >> app.log  # bytes no run read yet
names=(app.log*)
rm app.log
before=$(digest s.db)
cron "${names[@]}"
check "a generation removed with bytes never read: exit 1 (was $rc)" test "$rc" = 1
check "... saying it cannot be opened" grep -q "cannot open app.log: No such file or directory" err.txt
check "... the state unchanged" test "$before" = "$(digest s.db)"
cp p1 app.log
cron app.log nosuch.log
check "a name the state never read that does not exist: exit 1 (was $rc)" test "$rc" = 1
check "... saying it cannot be opened" grep -q "cannot open nosuch.log: No such file or directory" err.txt
check "... the state unchanged" test "$before" = "$(digest s.db)"
rm -f s.db*
cron app.log nosuch.log
check "a new job naming a file that does not exist: exit 1 (was $rc)" test "$rc" = 1
check "... and no state file made" test ! -e s.db

finish
