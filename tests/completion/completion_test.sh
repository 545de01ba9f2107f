#!/usr/bin/env bash
# Tests completions/logtide.bash: flags, window kinds, aggregate names, emit modes, file names,
# and that every flag in `logtide --help` can be completed.
# Usage: completion_test.sh LOGTIDE_BINARY COMPLETION_SCRIPT
set -u
bin=$(realpath "$1")
source "$(realpath "$2")"
passed=0 failed=0
# complete WORDS...: sets COMPREPLY as bash would for the command line "WORDS" (the last word is
# the one being completed).
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _logtide
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
expect "aggregates" "count count( count_distinct(" logtide --agg count
expect "emit modes" "final update" logtide --emit ""
expect "on-error" "fail skip" logtide --on-error ""
expect "formats" "csv ndjson" logtide --format ""
expect "time formats" "epoch_ms epoch_ns epoch_s epoch_us" logtide --time-format epoch
expect "file names for inputs" "app.log app.log.1" logtide --window tumbling:1m app
expect "file names for --config" "query.toml" logtide --config q
expect "flags by prefix" "--late-output --lateness" logtide --la
expect "nothing to offer for a field" "" logtide --by s

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
