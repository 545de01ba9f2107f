#!/usr/bin/env bash
# The zone database is a lookup whose version changes answers (issue 31, item 5): a --tz job's
# state records the zone database version its open windows' bounds were computed with, and
# `inspect` shows it. A resume under another version goes on when the zone's rules give every
# open window the bounds it was saved with, and is refused (exit 5, naming both versions and
# the window) when they do not. A state from before the record resumes as it did.
# Zone databases are faked with TZDIR (read by absl and by logtide alike): a tzdata.zi that
# names a version, and Europe/Berlin as the system has it, or with London's rules in its place.
#
# Usage: tz_database_test.sh LOGTIDE
set -u
bin=$(realpath "$1")
rows=$(realpath "$(dirname "$0")/state_rows.py")
. "$(dirname "$0")/../lib/checks.sh"

zones() {  # zones DIR VERSION BERLIN_FILE
  mkdir -p "$1/Europe"
  printf '# version %s\n' "$2" > "$1/tzdata.zi"
  cp "$3" "$1/Europe/Berlin"
}
zones db-a 2001a /usr/share/zoneinfo/Europe/Berlin
zones db-b 2002b /usr/share/zoneinfo/Europe/Berlin
zones db-moved 2003c /usr/share/zoneinfo/Europe/London

# Berlin's 2024-03-31 runs from 03-30T23:00Z to 03-31T22:00Z (23 hours); with London's rules,
# its start 03-30T23:00Z is in London's 03-30, 03-30T00:00Z to 03-31T00:00Z (GMT until 01:00Z
# on 03-31). The first run holds Berlin's 03-31 open.
printf '%s\n' '{"ts":"2024-03-30T10:00:00Z"}' '{"ts":"2024-03-31T10:00:00Z"}' > a.ndjson
printf '%s\n' '{"ts":"2024-03-31T12:00:00Z"}' '{"ts":"2024-04-01T10:00:00Z"}' > b.ndjson
cat a.ndjson b.ndjson > all.ndjson
Q=(-q --window tumbling:1d --tz Europe/Berlin --time ts)
day1='{"window_start":"2024-03-29T23:00:00Z","window_end":"2024-03-30T23:00:00Z","count":1}'
day2='{"window_start":"2024-03-30T23:00:00Z","window_end":"2024-03-31T22:00:00Z","count":2}'
day3='{"window_start":"2024-03-31T22:00:00Z","window_end":"2024-04-01T22:00:00Z","count":1}'
printf '%s\n' "$day1" "$day2" "$day3" > expected.ndjson
check "one run gives Berlin's days (the 23-hour day has 2 events)" \
  bash -c "'$bin' ${Q[*]} all.ndjson | cmp -s - expected.ndjson"

TZDIR=$PWD/db-a "$bin" "${Q[@]}" --state s.db --hold -o out.ndjson a.ndjson
check "the held run wrote the first day only" [ "$(cat out.ndjson)" = "$day1" ]
cp s.db s.good
cp out.ndjson out.good
"$bin" inspect s.db > inspect.json
check "inspect shows the zone database the state was written with" \
  grep -q '"zone_database":"2001a"' inspect.json

# Other rules for Berlin's open day: refused, naming both versions and the window.
TZDIR=$PWD/db-moved "$bin" "${Q[@]}" --state s.db -o out.ndjson b.ndjson 2> err.txt
rc=$?
check "other rules for an open window: exit 5" [ "$rc" = 5 ]
check "the refusal names the version the state was written with" grep -q '"2001a"' err.txt
check "the refusal names this system's version" grep -q '"2003c"' err.txt
check "the refusal names the zone and the window's saved and new bounds" grep -qF \
  '"Europe/Berlin" give the open window [2024-03-30T23:00:00Z, 2024-03-31T22:00:00Z) other bounds (its start is in the window [2024-03-30T00:00:00Z, 2024-03-31T00:00:00Z) now)' \
  err.txt
check "the refused state is unchanged" cmp -s s.db s.good
check "the refused run wrote nothing" cmp -s out.ndjson out.good

# Another version with the same rules for the open windows: resumes, records the new version.
TZDIR=$PWD/db-b "$bin" "${Q[@]:1}" --state s.db --hold -o out.ndjson b.ndjson 2> err.txt  # not -q
check "the same rules under another version: resumed" [ $? = 0 ]
check "the same rules under another version: a warning names both versions and the window count" \
  grep -qF 'warning: the state was saved with zone database "2001a" and this system has zone database "2002b"; its rules for "Europe/Berlin" give the 1 open window the bounds it was saved with' err.txt
"$bin" inspect s.db > inspect.json
check "the resumed run recorded its zone database" grep -q '"zone_database":"2002b"' inspect.json
TZDIR=$PWD/db-b "$bin" "${Q[@]}" --state s.db -o out.ndjson b.ndjson
check "the resumed job writes what one run writes" cmp -s out.ndjson expected.ndjson

# A recorded version faked in the state file: the same refusal names it.
cp s.good s.db
cp out.good out.ndjson
python3 "$rows" s.db zone-db 1999z
check "a faked record keeps valid checksums" python3 "$rows" s.db check
TZDIR=$PWD/db-moved "$bin" "${Q[@]}" --state s.db -o out.ndjson b.ndjson 2> err.txt
check "a faked recorded version: exit 5" [ $? = 5 ]
check "a faked recorded version: named" grep -q 'zone database "1999z" and this system has zone database "2003c"' err.txt

# A state from before the record (windows format 4): resumes under the system's zones; inspect
# says null; its next checkpoint records the version.
cp s.good s.db
cp out.good out.ndjson
python3 "$rows" s.db zone-db --drop
"$bin" inspect s.db > inspect.json
check "a state from before the record: inspect shows null" grep -q '"zone_database":null' inspect.json
"$bin" "${Q[@]}" --state s.db --hold -o out.ndjson b.ndjson
check "a state from before the record: resumed" [ $? = 0 ]
"$bin" inspect s.db > inspect.json
check "a state from before the record: its next checkpoint records the version" \
  grep -q '"zone_database":"' inspect.json
"$bin" "${Q[@]}" --state s.db -o out.ndjson b.ndjson
check "a state from before the record: the job writes what one run writes" \
  cmp -s out.ndjson expected.ndjson

# A job without --tz records no zone database and inspect says nothing of one.
"$bin" -q --window tumbling:1d --time ts --state plain.db --hold -o plain.ndjson a.ndjson
"$bin" inspect plain.db > inspect.json
check "without --tz, inspect shows no zone database" bash -c "! grep -q zone_database inspect.json"
finish
