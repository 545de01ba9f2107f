#!/usr/bin/env bash
# Tests completions/logtide.fish with fish's own completer (`complete -C`): flags with their
# descriptions, window kinds and units, aggregates, modes (--explain='s too), file names, inspect,
# and that every flag in `logtide --help` is offered. Exits 77 (skipped) when fish is not installed.
# Usage: fish_test.sh LOGTIDE_BINARY COMPLETION_SCRIPT
set -u
command -v fish >/dev/null || { echo "skipped: fish is not installed"; exit 77; }
bin=$(realpath "$1")
script=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" && mkdir logs && touch app.log app.log.1 "my file.toml" logs/app.log
passed=0 failed=0
# candidates LINE: the words fish offers for the command line LINE, one a line, sorted.
candidates() {
  HOME=$scratch fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$script" "$1" | cut -f1 | sort
}
expect() {  # expect "description" "expected words, space-separated" LINE
  local got
  got=$(candidates "$3" | tr '\n' ' ' | sed 's/ $//')
  if [ "$got" = "$2" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $1: for [$3] expected [$2], got [$got]"
  fi
}

expect "window kinds" "session: sliding: tumbling:" "logtide --window "
expect "units after tumbling:1" "tumbling:1d tumbling:1h tumbling:1m tumbling:1ms tumbling:1s" "logtide --window tumbling:1"
expect "the slide after a sliding size" "sliding:5m:" "logtide --window sliding:5m"
expect "the --flag=value form" "--window=tumbling:" "logtide --window=tu"
expect "durations" "30d 30h 30m 30ms 30s" "logtide --delay 30"
expect "aggregates" "count count( count_distinct(" "logtide --agg count"
expect "quantiles" "p90( p95( p99( p999(" "logtide --agg p9"
expect "emit modes" "final update" "logtide --emit "
expect "on-error" "fail skip" "logtide --on-error "
expect "formats" "csv ndjson table" "logtide --format "
expect "time formats" "epoch_ms epoch_ns epoch_s epoch_us" "logtide --time-format epoch"
for flag in -o --output --state --errors --late-output --config; do
  expect "files for $flag" "my file.toml" "logtide $flag my"
  expect "directories for $flag" "logs/" "logtide $flag lo"
done
expect "inputs" "app.log app.log.1" "logtide --window tumbling:1m app"
expect "inspect or an input first" "app.log app.log.1 inspect logs/ my file.toml" "logtide "
expect "inspect's state file" "my file.toml" "logtide inspect my"
expect "inspect's flags" "--help -h" "logtide inspect -"
expect "flags by prefix" "--late-output --lateness" "logtide --la"
expect "explain modes after '='" "--explain=sql:clickhouse --explain=sql:duckdb --explain=sql:flink --explain=words" "logtide --explain="
expect "explain modes by prefix" "--explain=sql:clickhouse --explain=sql:duckdb --explain=sql:flink" "logtide --explain=sq"
expect "--explain and a space: an input file follows" "app.log app.log.1" "logtide --explain app"
expect "nothing to offer for a field" "" "logtide --by a"
expect "nothing to offer for a number" "" "logtide --threads a"

# Every flag in --help is offered, with a description.
offered=$(HOME=$scratch fish --no-config -c 'source $argv[1]; complete -C "logtide -"' "$script")
for flag in $("$bin" --help | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
  if grep -qE -- "^$flag	.+" <<< "$offered"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $flag is in --help but is not offered with a description"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
