#!/usr/bin/env bash
# Scenario tests for --state: cron runs over a growing log, rotation, refusals (each with its
# message, exit code, and the state file unchanged), disk full, standard output redirected to a
# file, finished streams.
# Usage: state_test.sh LOGTIDE LOGTIDE_GEN
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
Q=(--window tumbling:10s --by service --agg count --agg 'sum(bytes)' --agg 'last(path)' --delay 2s --lateness 5s)
digest() { sha256sum "$1" | cut -d' ' -f1; }
# Waits until the command succeeds (polling every 10 ms), for at most a minute however busy the
# machine; then goes on, and the checks that follow fail if it never did.
wait_until() { local i; for ((i = 0; i < 6000; i++)); do "$@" && return 0; sleep 0.01; done; return 1; }
reset() { rm -f s.db s.db-wal s.db-shm out.ndjson late.ndjson err.txt; }

"$gen" --lines 20000 --seed 5 --rate-per-s 200 --disorder-ms 1500 --late-fraction 0.01 > all.ndjson
# References: one uninterrupted run, over a file with the name the tests use (late records name it).
mkdir ref && cp all.ndjson ref/app.log
(cd ref && "$bin" -q "${Q[@]}" --late-output ../ref-late.ndjson app.log > ../ref.ndjson) || fail "reference run"
"$bin" -q "${Q[@]}" --late-output ref-late-all.ndjson all.ndjson > /dev/null

# --- cron: the log grows in chunks cut in the middle of lines; one --hold run per chunk -------
# The cut points come from bash's RANDOM, seeded (LOGTIDE_TEST_SEED picks another seed).
seed=${LOGTIDE_TEST_SEED:-20261130}
echo "seed $seed"
RANDOM=$seed
reset
: > app.log
size=$(stat -c %s all.ndjson)
pos=0
runs=0
while [ "$pos" -lt "$size" ]; do
  step=$(( (RANDOM * 32768 + RANDOM) % 200000 + 1 ))
  head -c $((pos + step)) all.ndjson | tail -c +$((pos + 1)) >> app.log
  pos=$((pos + step))
  "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson --late-output late.ndjson app.log || fail "cron run $runs exited $?"
  runs=$((runs + 1))
done
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson --late-output late.ndjson app.log || fail "final cron run"
check "cron: $runs --hold runs then a final run give the bytes of one run" cmp -s out.ndjson ref.ndjson
check "cron: late events too" cmp -s late.ndjson ref-late.ndjson
[ "$runs" -ge 10 ] || fail "cron: only $runs runs"

# --- a run in the middle of a line leaves that line for the next run ----------------------------
reset
printf '{"ts":"2024-05-01T10:00:01Z","service":"a"}\n{"ts":"2024-05-01T10:00:02Z","serv' > g.log
"$bin" -q --window tumbling:1m --by service --state s.db --hold -o out.ndjson g.log
check "hold: the partial last line is not consumed" bash -c "'$bin' inspect s.db | grep -q '\"offset\":44,\"line\":1'"
printf 'ice":"b"}\n' >> g.log
"$bin" -q --window tumbling:1m --by service --state s.db -o out.ndjson g.log
check "hold: the completed line counts in the next run" grep -q '"service":"b","count":1' out.ndjson

# --- inspect on a job killed before its first checkpoint: its query, and no positions yet ----------
reset
LOGTIDE_TEST_KILL_AT=before-commit:1 "$bin" -q --window tumbling:1m --by service --state s.db -o out.ndjson g.log 2> /dev/null
check "inspect before the first checkpoint: the empty job, exit 0" bash -c "'$bin' inspect s.db | grep -q '\"checkpoints\":0,\"inputs\":\[\],\"outputs\":\[\]'"

# --- rotation: app.log renamed to app.log.1, a new app.log started ------------------------------
reset
head -n 12000 all.ndjson > app.log
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson --late-output late.ndjson app.log
head -n 15000 all.ndjson | tail -n 3000 >> app.log   # more lines before the rotation
mv app.log app.log.1
tail -n +15001 all.ndjson > app.log
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson --late-output late.ndjson app.log.1 app.log || fail "rotation run"
# The same two files read in one run from the start give the reference for two inputs.
"$bin" -q "${Q[@]}" --late-output ref2-late.ndjson app.log.1 app.log > ref2.ndjson
check "rotation: app.log.1 continued at its offset, new app.log read from its start" cmp -s out.ndjson ref2.ndjson

# --- refusals: message, exit code, state unchanged ----------------------------------------------
refuse() {  # refuse NAME EXPECTED_EXIT MESSAGE_PART COMMAND...
  local name=$1 code=$2 part=$3; shift 3
  local before after rc
  before=$(digest s.db)
  "$@" > /dev/null 2> err.txt
  rc=$?
  after=$(digest s.db)
  [ "$rc" = "$code" ] || { fail "$name: exit $rc, expected $code: $(cat err.txt)"; return; }
  grep -q -- "$part" err.txt || { fail "$name: message lacks '$part': $(cat err.txt)"; return; }
  [ "$before" = "$after" ] || { fail "$name: the state file changed"; return; }
  ok
}
reset
head -n 5000 all.ndjson > app.log
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
refuse "changed query" 5 'window: the state has "tumbling:10s", this run has "tumbling:1m"' \
  "$bin" -q --window tumbling:1m --by service --agg count --agg 'sum(bytes)' --agg 'last(path)' --delay 2s --lateness 5s --state s.db --hold -o out.ndjson app.log
refuse "changed lateness" 5 'lateness: the state has "5s", this run has "0s"' \
  "$bin" -q --window tumbling:10s --by service --agg count --agg 'sum(bytes)' --agg 'last(path)' --delay 2s --state s.db --hold -o out.ndjson app.log
refuse "changed aggregate field" 5 'agg: the state has' \
  "$bin" -q --window tumbling:10s --by service --agg count --agg 'sum(status)' --agg 'last(path)' --delay 2s --lateness 5s --state s.db --hold -o out.ndjson app.log
# The query's identity is canonical (issue 13): spacing inside an aggregate and a default name
# written out are the same query, and the run resumes.
cp out.ndjson canon-before.ndjson
head -n 6000 all.ndjson | tail -n 1000 >> app.log
"$bin" -q --window tumbling:10s --by service --agg 'count = count' --agg ' sum( bytes ) ' --agg 'last_path=last(path)' --delay 2s --lateness 5s --state s.db --hold -o out.ndjson app.log 2> err.txt
check "canonical query: spacing and default names written out resume the job (exit 0)" test $? = 0
check "canonical query: ... and the resumed run went on writing" bash -c '[ "$(wc -c < out.ndjson)" -gt "$(wc -c < canon-before.ndjson)" ]'
# An overlapping run: a slow logtide run (a checkpoint every 20 lines) holds the state.
"$gen" --lines 400000 --seed 4 --rate-per-s 1000 > slow.ndjson
rm -f s2.db*
"$bin" -q "${Q[@]}" --state s2.db --checkpoint-every 20 -o slow.out slow.ndjson 2> /dev/null &
slow=$!
# The outputs are opened after the state (which the run then holds): wait for both.
wait_until bash -c '[ -e s2.db ] && [ -e slow.out ]' 
"$bin" -q "${Q[@]}" --state s2.db --checkpoint-every 20 -o other.out slow.ndjson > /dev/null 2> err.txt
rc=$?
check "state in use: a second run fails at once with exit 4" test "$rc" = 4
check "state in use: ... saying so" grep -q "in use by another logtide run; nothing was read or written" err.txt
check "state in use: ... writing nothing" test ! -s other.out
kill "$slow" 2>/dev/null; wait "$slow" 2>/dev/null
cp app.log app.log.bak
head -c 100000 app.log.bak > app.log
refuse "truncated input" 5 "truncated or replaced" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
cp app.log.bak app.log
sed -i '3000s/"service":"/"service":"X/' app.log
refuse "input rewritten before the offset" 5 "bytes before offset" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
cp app.log.bak app.log
cp out.ndjson out.bak
head -c 10 out.bak > out.ndjson
refuse "truncated output" 5 "it was truncated or replaced" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
cp out.bak out.ndjson
# An output replaced by another file at least as long: its last bytes before the committed
# length are not the job's.
tail -c 10 out.bak | tr 'a-z' 'A-Z' > tail.txt
{ head -c $(( $(wc -c < out.bak) - 10 )) out.bak; cat tail.txt; } > out.ndjson
refuse "output replaced by another as long" 5 "is not the file this job wrote" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
check "output replaced: left as it was" cmp -s out.ndjson <({ head -c $(( $(wc -c < out.bak) - 10 )) out.bak; cat tail.txt; })
cp out.bak out.ndjson
# Outputs added, dropped or moved on resume: the job's outputs would be incomplete.
refuse "--late-output added on resume" 5 "--late-output late.ndjson is new" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson --late-output late.ndjson app.log
refuse "--output moved on resume" 5 "--output was out.ndjson, now other.ndjson" "$bin" -q "${Q[@]}" --state s.db --hold -o other.ndjson app.log
check "the refused runs created no output" test ! -e other.ndjson
# Standard output: a job that wrote to it through '>>', resumed with '>'.
rm -f s2.db fresh.ndjson
"$bin" -q "${Q[@]}" --state s2.db --hold app.log >> fresh.ndjson
check "a job on standard output wrote records" test -s fresh.ndjson
cp s.db s.db.main; cp s2.db s.db
refuse "stdout truncated by >" 5 "use '>>' or --output" bash -c "'$bin' -q ${Q[*]@Q} --state s.db --hold app.log > fresh.ndjson"
cp s.db.main s.db
# --reread-replaced: the truncated file is read from its start instead.
cp s.db s.before
head -n 300 app.log.bak > app.log
"$bin" "${Q[@]}" --state s.db --hold --reread-replaced -o out.ndjson app.log > /dev/null 2> err.txt
check "reread-replaced: the run goes on" test $? = 0
check "reread-replaced: and says so" grep -q "reading it from its start (--reread-replaced)" err.txt
check "reread-replaced: the state now stands at the end of the new file" \
  bash -c "'$bin' inspect s.db | grep -q '\"offset\":$(stat -c %s app.log),'"
cp s.before s.db; rm -f s.db-wal s.db-shm
cp app.log.bak app.log
cp s.db s.good
for i in 1 2 3 4 5; do
  cp s.good s.db
  rm -f s.db-wal s.db-shm
  python3 - "$i" <<'PY'
import random, sys
random.seed(int(sys.argv[1]))
data = bytearray(open("s.db", "rb").read())
# Bytes in use: a flip in a page's unused space (zeros) damages nothing, and a state whose
# pages have more of it (the pointer map of auto-vacuum) would pass by chance.
used = [i for i in range(100, len(data)) if data[i] != 0]
for i in random.sample(used, 20):
    data[i] ^= 0xFF
open("s.db", "wb").write(data)
PY
  refuse "state with flipped bytes ($i)" 5 "state file" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
done
cp s.good s.db; rm -f s.db-wal s.db-shm
truncate -s 2048 s.db
refuse "truncated state" 5 "state file" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
# An empty file is not a state either (logtide creates its state files whole): refused, and
# the outputs it would have truncated are left alone (issue 16, item 7).
rm -f s.db*
: > s.db
echo "another job's results" > out.ndjson
refuse "an empty file as --state" 5 "it is empty" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
check "an empty file as --state: the output is left alone" grep -q "another job's results" out.ndjson
# A new job whose output already holds data: refused unless --overwrite.
rm -f s.db*
refuse_new() { "$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log 2> err.txt; }
refuse_new
check "a new job over an output holding data: refused (exit 5)" test $? = 5
check "... saying what to do" grep -q "already holds 22 bytes.*--overwrite" err.txt
check "... the output left alone" grep -q "another job's results" out.ndjson
check "... and no state made for it" bash -c "! '$bin' inspect s.db 2>/dev/null | grep -q '\"checkpoints\":[1-9]'"
rm -f s.db*
"$bin" -q "${Q[@]}" --state s.db --overwrite -o out.ndjson app.log
"$bin" -q "${Q[@]}" app.log > plain.ndjson
check "--overwrite: the new job replaces the output" cmp -s out.ndjson plain.ndjson
check "--overwrite: no temporary file is left beside the state" bash -c "! ls s.db.new-* 2>/dev/null | grep -q ."
# A new job killed at its very first checkpoint (before any record), writing to standard output
# through '>>': the next run resumes it and appends after what the file held, once.
for point in before-commit after-commit; do
  rm -f s.db*
  echo "kept" > appended.ndjson
  LOGTIDE_TEST_KILL_AT=$point:1 "$bin" -q "${Q[@]}" --state s.db app.log >> appended.ndjson 2> /dev/null
  "$bin" -q "${Q[@]}" --state s.db app.log >> appended.ndjson
  "$bin" -q "${Q[@]}" app.log > fresh.ndjson
  check "killed at the first checkpoint ($point), then resumed: the file's bytes, then the run's once" \
    bash -c "(echo kept; cat fresh.ndjson) | cmp -s - appended.ndjson"
done
echo "just some text, not a database" > s.db
refuse "foreign file" 5 "not a logtide state file" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES(1);" 2>/dev/null || python3 -c "import sqlite3; c=sqlite3.connect('other.db'); c.execute('CREATE TABLE t(x)'); c.commit()"
cp other.db s.db
refuse "another SQLite database" 5 "not a logtide state file" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log

# --- another version's state: refused as such, not as damaged (issue 13) ------------------------
# A state file of format 1 (logtide before the checkpoint components), its header and tables
# as that version wrote them.
rm -f s.db* v1.db*
python3 - <<'PY'
import shutil, sqlite3
# Written in WAL mode, and copied while the connection is open, so that the copy keeps its
# write-ahead log as a killed run of that version leaves it.
c = sqlite3.connect("v1.db")
c.execute("PRAGMA journal_mode = WAL")
c.executescript("""
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE inputs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
  fingerprint BLOB NOT NULL, fingerprint_len INTEGER NOT NULL, offset INTEGER NOT NULL,
  line INTEGER NOT NULL, max_time INTEGER NOT NULL, tail_hash BLOB NOT NULL,
  dev INTEGER NOT NULL, ino INTEGER NOT NULL);
CREATE TABLE outputs(role TEXT PRIMARY KEY, path TEXT NOT NULL, length INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE window_log(id INTEGER PRIMARY KEY, op INTEGER NOT NULL, k BLOB NOT NULL, v BLOB NOT NULL);
INSERT INTO meta VALUES('engine', x'01000000');
PRAGMA application_id = 1280592196;
PRAGMA user_version = 1;
""")
c.commit()
shutil.copy("v1.db", "s.db")
shutil.copy("v1.db-wal", "s.db-wal")
c.close()
PY
refuse "a state of format 1" 5 "written by an older version of logtide (state format 1" \
  "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
check "a state of format 1: its write-ahead log is left as it was" test -s s.db-wal
check "a state of format 1: inspect says so too" bash -c "'$bin' inspect s.db 2>&1 >/dev/null | grep -q 'older version'"
# A section written in another format: refused naming the section.
reset
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
rows=$here/state_rows.py
check "state rows: every row's checksum is right" python3 "$rows" s.db check
cp s.db s.good
python3 "$rows" s.db set-version windows 2 --resum
refuse "a section of another format" 5 'another version of logtide (one older than the first release: its "windows" section has format 2; this version reads formats up to 5' \
  "$bin" "${Q[@]}" --state s.db --hold -o out.ndjson app.log
check "a section of another format: the refusal reports no totals of the saved job" bash -c "! grep -q warning err.txt"
check "a section of another format: the file is unchanged" python3 "$rows" s.db check
# A section from a newer logtide (issue 33): refused as a newer one's, naming both formats.
cp s.good s.db
python3 "$rows" s.db set-version windows 6 --resum
cp s.db s.newer
refuse "a section of a newer format" 5 'another version of logtide (a newer one: its "windows" section has format 6; this version reads formats up to 5' \
  "$bin" "${Q[@]}" --state s.db --hold -o out.ndjson app.log
check "a section of a newer format: the file is unchanged" cmp -s s.db s.newer
# Format 3 of "windows" (before a stop kept what changed in update mode) is read.
cp s.good s.db
python3 "$rows" s.db zone-db --drop  # format 4: no zone block
python3 "$rows" s.db set-version windows 3 --resum
check "a \"windows\" section of format 3 is read" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
cp s.good s.db
python3 "$rows" s.db add-section early_firings 1 x
refuse "a section no component knows" 5 'another version of logtide (it has a "early_firings" section' \
  "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
cp s.good s.db
python3 "$rows" s.db set-version windows 99
refuse "a section edited without its checksum" 5 'the "windows" section fails its checksum' \
  "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
# edited NAME MESSAGE_PART SQL: the good state changed by SQL behind logtide's back is refused.
edited() {
  cp s.good s.db
  python3 -c 'import sqlite3, sys; c = sqlite3.connect("s.db"); c.execute(sys.argv[1]); c.commit()' "$3"
  refuse "$1" 5 "$2" "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log
}
edited "a meta row edited by hand" 'a meta row fails its checksum' \
  "UPDATE meta SET value = '1' WHERE key = 'finished'"
edited "a window row edited by hand" 'a window row fails its checksum' \
  "UPDATE window_log SET v = CAST(v AS BLOB) || x'00' WHERE id = (SELECT max(id) FROM window_log)"
edited "a damaged schema" 'its schema is damaged' "DROP TABLE sections"
cp s.good s.db
python3 "$rows" s.db delete-section counters
refuse "a missing section" 5 'has no "counters" section: it is damaged' \
  "$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log

# --- standard input: a different stream is refused ------------------------------------------------
reset
head -n 4000 all.ndjson > a.part
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson - < a.part
refuse "stdin: another stream" 5 "standard input is not the stream" \
  bash -c "tail -n 8000 all.ndjson | '$bin' -q ${Q[*]@Q} --state s.db --hold -o out.ndjson -"
head -n 6000 all.ndjson > a.longer
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson - < a.longer
"$bin" -q "${Q[@]}" -o one.ndjson - < a.longer
check "stdin: the same stream, longer, continues exactly" cmp -s out.ndjson one.ndjson

# --- a finished stream ----------------------------------------------------------------------------
reset
head -n 3000 all.ndjson > app.log
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log
before=$(digest out.ndjson)
"$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log
check "finished: a rerun without new input exits 0" test $? = 0
check "finished: ... and changes nothing" test "$before" = "$(digest out.ndjson)"
echo '{"ts":"2024-05-01T12:00:00Z","service":"api"}' >> app.log
refuse "finished: new input is refused" 5 "has ended" "$bin" -q "${Q[@]}" --state s.db -o out.ndjson app.log

# --- standard output to a file opened with >> -------------------------------------------------------
reset
head -n 8000 all.ndjson > app.log
"$bin" -q "${Q[@]}" app.log > ref3.ndjson
: > appended.ndjson
head -n 4000 app.log > part.log
"$bin" -q "${Q[@]}" --state s.db --hold part.log >> appended.ndjson
cp app.log part.log
"$bin" -q "${Q[@]}" --state s.db part.log >> appended.ndjson
check "stdout >>: resumed output equals one run" cmp -s appended.ndjson ref3.ndjson

# --- SIGTERM stops at a line boundary after a checkpoint: a pipe gets every record once ------------
reset
"$gen" --lines 400000 --seed 9 --rate-per-s 1000 > long.ndjson
"$bin" -q "${Q[@]}" long.ndjson > ref-long.ndjson
: > piped.ndjson
# Checkpoints every 20 lines slow the run down enough to be stopped in the middle: the signal
# goes to this run alone (its own pid), once it has written records (is past its start).
rm -f term.fifo; mkfifo term.fifo
cat term.fifo >> piped.ndjson &
reader=$!
"$bin" -q "${Q[@]}" --state s.db --checkpoint-every 20 long.ndjson > term.fifo 2> err.txt &
run=$!
wait_until bash -c '[ -s piped.ndjson ] || ! kill -0 '"$run"' 2>/dev/null' 
kill -TERM "$run" 2>/dev/null
wait "$run" "$reader"
check "SIGTERM: the run says it stopped" grep -q "stopped by signal 15 after a checkpoint" err.txt
"$bin" -q "${Q[@]}" --state s.db --checkpoint-every 20 long.ndjson | cat >> piped.ndjson
check "SIGTERM: after the rerun the pipe got each record exactly once" cmp -s piped.ndjson ref-long.ndjson

# --- a signal while waiting on a quiet pipe stops the run, after a checkpoint ---------------------
reset
(echo "$BASHPID" > writer.pid; head -n 3000 all.ndjson; exec sleep 30) |
  "$bin" -q "${Q[@]}" --state s.db --checkpoint-interval 50ms -o out.ndjson - 2> err.txt &
pid=$!  # logtide, the pipeline's last command
# Idle: a checkpoint taken while it waits holds every line the writer wrote.
wait_until bash -c "'$bin' inspect s.db 2>/dev/null | grep -q '\"line\":3000,'"
kill -INT "$pid"
wait_until bash -c "! kill -0 $pid 2>/dev/null"
# Stopped by the signal, not by the end of its input: the writer still holds the pipe open.
kill -0 "$(cat writer.pid)" 2>/dev/null
writer_alive=$?
kill "$(cat writer.pid)" 2>/dev/null
wait 2>/dev/null
check "idle pipe + SIGINT: the run says it stopped" grep -q "stopped by signal 2 after a checkpoint" err.txt
check "idle pipe + SIGINT: stopped while the pipe was still open" test "$writer_alive" = 0
check "idle pipe + SIGINT: the checkpoint holds the 3000 lines" bash -c "'$bin' inspect s.db | grep -q '\"line\":3000,'"

# --- checkpoint cadence and --durable -------------------------------------------------------------
reset
head -n 10240 all.ndjson > cad.log
ckpts() { "$bin" -q "${Q[@]}" --state s.db -o out.ndjson --stats "$@" cad.log 2>&1 >/dev/null | grep -o '"checkpoints":[0-9]*'; }
check "--checkpoint-every 1000: the new job's first, 10 more and the final one" test "$(ckpts --checkpoint-every 1000)" = '"checkpoints":12'
reset
check "--checkpoint-interval 0: the first, one per 1024 lines (when the clock is read) and the final one" \
  test "$(ckpts --checkpoint-every 100000000 --checkpoint-interval 0)" = '"checkpoints":12'
reset
exec 3>&2 2>/dev/null  # the shell reports the kill on its own standard error
LOGTIDE_TEST_KILL_AT=after-commit:3 "$bin" -q "${Q[@]}" --state s.db --durable --checkpoint-every 1000 -o out.ndjson \
  --late-output late.ndjson all.ndjson
rc=$?
exec 2>&3 3>&-
check "--durable: killed after the third checkpoint" test "$rc" = 137
"$bin" -q "${Q[@]}" --state s.db --durable --checkpoint-every 1000 -o out.ndjson --late-output late.ndjson all.ndjson
"$bin" -q "${Q[@]}" --late-output ref-late-d.ndjson all.ndjson > ref-d.ndjson
check "--durable: the resumed run gives the bytes of one run" cmp -s out.ndjson ref-d.ndjson
check "--durable: late events too" cmp -s late.ndjson ref-late-d.ndjson

# --- disk full: output and state -------------------------------------------------------------------
for target in output state; do
  reset
  if [ "$target" = output ]; then
    # The test hook fails every write of the outputs after the 5th with ENOSPC.
    LOGTIDE_TEST_FAIL_WRITES=5 "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 1000 -o out.ndjson --late-output late.ndjson all.ndjson 2> err.txt
  else
    # RLIMIT_FSIZE makes writes past 48 KB fail with EFBIG, as a full disk would: the state's
    # write-ahead log reaches that first.
    (ulimit -f 48; trap '' XFSZ; exec "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 1000 --late-output late.ndjson all.ndjson) > out.pipe 2> err.txt
  fi
  rc=$?
  check "disk full ($target): the run stops with exit 1" test "$rc" = 1
  check "disk full ($target): with a message" grep -Eq "No space left on device|is the disk full" err.txt
  check "disk full ($target): the state is intact" python3 -c "import sqlite3,sys; sys.exit(sqlite3.connect('s.db').execute('PRAGMA integrity_check').fetchone()[0] != 'ok')"
  if [ "$target" = output ]; then
    "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 1000 -o out.ndjson --late-output late.ndjson all.ndjson
    check "disk full ($target): the next run resumes exactly" cmp -s out.ndjson ref.ndjson
  else
    # Standard output was a regular file: the next run appends to it ('>>'), after the length
    # the last checkpoint that went through committed.
    "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 1000 --late-output late.ndjson all.ndjson >> out.pipe
    check "disk full ($target): the next run resumes exactly" cmp -s out.pipe ref.ndjson
    check "disk full ($target): late events too" cmp -s late.ndjson ref-late-all.ndjson
  fi
done

finish
