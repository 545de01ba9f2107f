#!/usr/bin/env bash
# Standard descriptors closed or failing (issue 16, items 1, 3 and 11): a run started without
# stderr keeps its state file intact; without stdout it refuses to lose the results; a
# diagnostics stream that fails (a full device) never aborts the run; output that cannot be
# written (inspect, --explain, --help on a full device) exits 1.
# Usage: streams_test.sh LOGTIDE SAMPLE_FILE
set -u
bin=$(realpath "$1")
sample=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
passed=0 failed=0
check() { local name=$1; shift; if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name"; fi; }
intact() { python3 -c "import sqlite3,sys; sys.exit(sqlite3.connect('$1').execute('PRAGMA integrity_check').fetchone()[0] != 'ok')"; }
Q=(--window tumbling:1m --agg count)
"$bin" -q "${Q[@]}" "$sample" > want.ndjson 2> /dev/null

# stderr closed: the sample's bad line and late event give warnings that must not reach the
# state file (which would take descriptor 2).
"$bin" "${Q[@]}" --state s.db -o out.ndjson "$sample" 2>&-
check "stderr closed: exit 0" test $? = 0
check "stderr closed: the state file is intact" intact s.db
check "stderr closed: the results are right" cmp -s out.ndjson want.ndjson
"$bin" inspect s.db > inspect.json 2> err.txt
check "stderr closed: the state resumes (inspect reads it)" grep -q '"finished":true' inspect.json

# stdout closed: results to standard output would be lost; refused before anything is read.
rm -f s.db*
"$bin" "${Q[@]}" --state s.db "$sample" >&- 2> err.txt
check "stdout closed: refused (exit 2)" test $? = 2
check "stdout closed: saying why" grep -q "standard output is closed" err.txt
check "stdout closed: no state made" test ! -e s.db
"$bin" "${Q[@]}" -o out2.ndjson "$sample" >&- 2> err.txt
check "stdout closed, --output given: runs" cmp -s out2.ndjson want.ndjson

# stdin closed and read: refused, not read as empty.
"$bin" "${Q[@]}" <&- > out3.ndjson 2> err.txt
check "stdin closed: refused (exit 2)" test $? = 2
check "stdin closed: saying why" grep -q "standard input is closed" err.txt

# stderr on a full device: warnings are dropped; the run goes on and exits 0.
if [ -w /dev/full ]; then
  "$bin" "${Q[@]}" --progress --stats "$sample" > out4.ndjson 2> /dev/full
  check "stderr full: exit 0, not an abort" test $? = 0
  check "stderr full: the results are right" cmp -s out4.ndjson want.ndjson
  rm -f s.db*
  "$bin" "${Q[@]}" --state s.db -o out.ndjson "$sample" > /dev/null
  "$bin" inspect s.db > /dev/full 2> err.txt
  check "inspect to a full device: exit 1" test $? = 1
  check "inspect to a full device: saying so" grep -q "cannot write to standard output" err.txt
  "$bin" "${Q[@]}" --explain > /dev/full 2> err.txt
  check "--explain to a full device: exit 1" test $? = 1
  "$bin" --help > /dev/full 2> err.txt
  check "--help to a full device: exit 1" test $? = 1
  "$bin" --version > /dev/full 2> err.txt
  check "--version to a full device: exit 1" test $? = 1
else
  echo "skipped the /dev/full cases: /dev/full is not writable here"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
