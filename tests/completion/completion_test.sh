#!/usr/bin/env bash
# Tests completions/logtide.bash by calling its function as bash does: flags, window kinds and
# sizes across the ':' word break, --explain= modes across the '=' and ':' breaks, aggregate names, modes, which words fall back to file names,
# and that every flag in `logtide --help` can be completed. (readline_test.py types into a real
# bash for what readline itself does with file names.)
# Usage: completion_test.sh LOGTIDE_BINARY COMPLETION_SCRIPT
set -u
bin=$(realpath "$1")
source "$(realpath "$2")"
passed=0 failed=0
# complete WORDS...: sets COMPREPLY as bash would for the command line "WORDS" (the last word is
# the one being completed), splitting words at ':' as bash's COMP_WORDBREAKS does. Records the
# options the function sets with compopt in $opts; with -o default and no reply, bash falls back
# to file names, which COMPREPLY then holds.
compopt() {
  local flag=$1 opt=$2
  if [ "$flag" = -o ]; then opts="$opts $opt"; else opts=${opts// $opt/}; fi
}
complete_words() {
  local w piece
  COMP_WORDS=()
  for w in "$@"; do
    [[ $w == *[:=]* ]] || { COMP_WORDS+=("$w"); continue; }
    while [[ $w == *[:=]* ]]; do
      piece=${w%%[:=]*}
      [ -n "$piece" ] && COMP_WORDS+=("$piece")
      COMP_WORDS+=("${w:${#piece}:1}")
      w=${w:${#piece}+1}
    done
    [ -n "$w" ] && COMP_WORDS+=("$w")
  done
  [[ ${!#} == *[:=] ]] && COMP_WORDS+=("")  # the cursor is right after a ':' or '='
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
  COMPREPLY=() opts=
  _logtide
  if [ ${#COMPREPLY[@]} = 0 ] && [[ $opts == *" default"* ]]; then
    local cur=${!#}
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
expect() {  # expect "description" "expected words" WORDS...
  local what=$1 want=$2
  shift 2
  complete_words "$@"
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
  if [ "$got" = "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $what: expected [$want], got [$got]"
  fi
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" && touch app.log app.log.1 query.toml

expect "window kinds" "session: sliding: tumbling:" logtide --window ""
expect "window kind prefix" "session: sliding:" logtide --window s
expect "after the ':' only the size's piece is replaced" "1d 1h 1m 1ms 1s" logtide --window tumbling:1
expect "a session gap" "10d 10h 10m 10ms 10s" logtide --window session:10
expect "the slide follows a sliding size" "5m:" logtide --window sliding:5m
expect "a slide's units" "1d 1h 1m 1ms 1s" logtide --window sliding:5m:1
expect "nothing after a complete tumbling size" "" logtide --window tumbling:1m
expect "durations" "30d 30h 30m 30ms 30s" logtide --delay 30
expect "the ':' break in an earlier word" "app.log app.log.1" logtide --window tumbling:1m --by host app
expect "aggregates" "count count( count_distinct(" logtide --agg count
expect "quantiles" "p90( p95( p99( p999(" logtide --agg p9
expect "emit modes" "final update" logtide --emit ""
expect "on-error" "fail skip" logtide --on-error ""
expect "formats" "csv ndjson table" logtide --format ""
expect "time formats" "epoch_ms epoch_ns epoch_s epoch_us" logtide --time-format epoch
expect "file names for inputs" "app.log app.log.1" logtide --window tumbling:1m app
for flag in -o --output --state --errors --late-output --config; do
  expect "file names for $flag" "query.toml" logtide "$flag" q
done
expect "inspect and input files first" "inspect" logtide in
expect "inspect's state file" "app.log app.log.1" logtide inspect app
expect "flags by prefix" "--late-output --lateness" logtide --la
expect "explain modes after '='" "sql:clickhouse sql:duckdb sql:flink words" logtide --explain=
expect "explain modes by prefix" "sql:clickhouse sql:duckdb sql:flink" logtide --explain=s
expect "after the mode's ':' only its piece is replaced" "clickhouse duckdb flink" logtide --explain=sql:
expect "an explain mode's last piece" "duckdb" logtide --explain=sql:d
expect "no explain mode for a wrong prefix" "" logtide --explain=x
expect "--explain and a space: an input file follows" "app.log app.log.1" logtide --explain app
expect "nothing to offer for a field" "" logtide --by s
expect "no file names for a mode" "" logtide --emit q

# Every flag in --help completes.
for flag in $("$bin" --help | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
  complete_words logtide "$flag"
  if printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$flag"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $flag is in --help but does not complete"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
