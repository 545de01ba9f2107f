#!/usr/bin/env bash
# `logtide inspect` (issue 28): it shows every counter the job keeps, checks every row and the
# last checkpoint's binding as a resumed run does, and refuses a state file edited at the SQL
# level (rows deleted, changed, or taken from an older checkpoint or another job) with exit
# status 5 and a message that says the file is damaged, leaving the file as it was.
# Usage: inspect_test.sh LOGTIDE
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
# sql FILE STATEMENTS: runs them on the state file, as a program other than logtide would.
sql() { python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$@"; }
query() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"; }
digest() { sha256sum "$1" | cut -d' ' -f1; }
Q=(--window sliding:2m:1m --where 'status >= 500' --agg count --agg 'sum(bytes)')

# Sliding windows of 2 minutes every minute, no delay. Line by line:
#   10:00:30  500   in [09:59,10:01) and [10:00,10:02)
#   10:00:00  200   filtered (--where)
#   10:02:10  500   the watermark passes 10:02: both windows above close (2 records)
#   10:01:30  503   [10:00,10:02) closed, [10:01,10:03) open: partly late, 1 window missed
#   09:58:00  500   both its windows closed: a late event, 2 windows missed
#   not json        a bad line
#   10:02:20  500   "bytes" is a string: an ignored value of sum(bytes), none of count
cat > app.log <<'EOF'
{"ts":"2024-05-01T10:00:30Z","status":500,"bytes":1}
{"ts":"2024-05-01T10:00:00Z","status":200,"bytes":1}
{"ts":"2024-05-01T10:02:10Z","status":500,"bytes":1}
{"ts":"2024-05-01T10:01:30Z","status":503,"bytes":1}
{"ts":"2024-05-01T09:58:00Z","status":500,"bytes":1}
not json
{"ts":"2024-05-01T10:02:20Z","status":500,"bytes":"x"}
EOF
"$bin" -q --stats "${Q[@]}" --state s.db --hold -o out.ndjson app.log 2> stats.json ||
  fail "the job exited $?"
"$bin" inspect s.db > inspect.json || fail "inspect exited $?"
counter() { jq -c ".counters.$1" inspect.json; }
check "counters: 7 lines" [ "$(counter lines)" = 7 ]
check "counters: 1 bad line" [ "$(counter bad_lines)" = 1 ]
check "counters: 1 late event" [ "$(counter late_events)" = 1 ]
check "counters: 1 partly late event" [ "$(counter partly_late_events)" = 1 ]
check "counters: 3 missed windows (1 of the partly late event, 2 of the late one)" \
  [ "$(counter missed_windows)" = 3 ]
check "counters: 2 windows emitted" [ "$(counter windows_emitted)" = 2 ]
check "counters: 1 ignored value, of the second aggregate" [ "$(counter ignored_values)" = "[0,1]" ]
check "counters: 1 line filtered" [ "$(counter filtered)" = 1 ]
check "counters: the events --stats counted" \
  [ "$(counter events)" = "$(jq -c .job.events stats.json)" ]
check "counters: every counter of --stats's job object, with the same values" \
  [ "$(jq -c '.counters | .ignored_values |= length' inspect.json)" = \
    "$(jq -c '.job | .ignored_values |= length' stats.json)" ]

# --- the binding, as the file holds it --------------------------------------------------------
binding=$(query s.db "SELECT value FROM meta WHERE key = 'binding'")
check "binding: format 3" [ "$(jq .state_format inspect.json)" = 3 ]
check "binding: the job id the file's binding row holds" \
  [ "$(jq -r .binding.job inspect.json)" = "$(cut -d' ' -f2 <<< "$binding")" ]
check "binding: of the last checkpoint" [ "$(jq '.binding.checkpoint == .checkpoints' inspect.json)" = true ]
check "binding: the sections' count" \
  [ "$(jq .binding.sections inspect.json)" = "$(query s.db 'SELECT count(*) FROM sections')" ]
check "binding: the window log's rows" \
  [ "$(jq .binding.window_log_rows inspect.json)" = "$(query s.db 'SELECT count(*) FROM window_log')" ]
[ "$(query s.db 'SELECT count(*) FROM window_log')" -ge 2 ] || fail "the job left fewer than 2 window rows"

# An older checkpoint of the same job, and another job with the same query.
cp s.db old.db
printf '%s\n' '{"ts":"2024-05-01T10:03:30Z","status":500,"bytes":2}' >> app.log
"$bin" -q "${Q[@]}" --state s.db --hold -o out.ndjson app.log || fail "the second run exited $?"
"$bin" -q "${Q[@]}" --state other.db --hold -o other.ndjson app.log || fail "the other job exited $?"
"$bin" inspect s.db > /dev/null || fail "inspect after the second run exited $?"

# refused NAME PATTERN EDIT: inspect refuses a copy of s.db with EDIT applied, with exit 5 and
# a message matching PATTERN, and leaves it byte for byte as it was.
refused() {
  local name=$1 pattern=$2 edit=$3
  rm -f e.db && cp s.db e.db && sql e.db "$edit" || { fail "$name: the edit failed"; return; }
  local before rc
  before=$(digest e.db)
  "$bin" inspect e.db > e.json 2> e.err
  rc=$?
  check "$name: exit 5 (got $rc)" [ "$rc" = 5 ]
  check "$name: says the file is damaged" grep -q "state file e.db.*damaged" e.err
  check "$name: says what ($pattern)" grep -q "$pattern" e.err
  check "$name: nothing on standard output" [ ! -s e.json ]
  check "$name: the file is unchanged" [ "$(digest e.db)" = "$before" ]
}
refused "the last window row deleted" "window rows do not match its last checkpoint" \
  "DELETE FROM window_log WHERE id = (SELECT max(id) FROM window_log)"
refused "the first window row deleted" "window rows do not match its last checkpoint" \
  "DELETE FROM window_log WHERE id = (SELECT min(id) FROM window_log)"
refused "a window row's value changed" "a window row fails its checksum" \
  "UPDATE window_log SET v = x'00' || v WHERE id = (SELECT min(id) FROM window_log)"
refused "window rows moved" "window rows do not match its last checkpoint" \
  "UPDATE window_log SET id = -id"
refused "the sections of an older checkpoint" "sections do not match its last checkpoint" \
  "ATTACH 'old.db' AS o; DELETE FROM sections; INSERT INTO sections SELECT * FROM o.sections;"
refused "the window log of another job" "window rows do not match its last checkpoint" \
  "ATTACH 'other.db' AS o; DELETE FROM window_log; INSERT INTO window_log SELECT * FROM o.window_log;"
refused "the binding row deleted" "binding is missing" "DELETE FROM meta WHERE key = 'binding'"
refused "the meta rows of an older checkpoint" "meta rows do not match its last checkpoint" \
  "ATTACH 'old.db' AS o; DELETE FROM meta WHERE key <> 'binding'; INSERT INTO meta SELECT * FROM o.meta WHERE key <> 'binding';"
# A counters section of version 2 holds two counters fewer: these bytes do not decode as one.
cp s.db e2.db
python3 "$here/state_rows.py" e2.db set-version counters 2 --resum
before=$(digest e2.db)
"$bin" inspect e2.db > /dev/null 2> e.err
check "a counters section that does not decode: exit 5" [ $? = 5 ]
check "... says so" grep -q "counters section is damaged" e.err
check "... the file is unchanged" [ "$(digest e2.db)" = "$before" ]

# --- a state of format 2 (logtide before the binding): shown, with no binding ------------------
cp s.db f2.db
sql f2.db "DELETE FROM meta WHERE key = 'binding'; PRAGMA user_version = 2;"
"$bin" inspect f2.db > f2.json || fail "inspect of a format 2 state exited $?"
check "format 2: shown as such" [ "$(jq .state_format f2.json)" = 2 ]
check "format 2: no binding" [ "$(jq -c .binding f2.json)" = null ]
check "format 2: its counters" [ "$(jq -c .counters.missed_windows f2.json)" = 3 ]

finish
