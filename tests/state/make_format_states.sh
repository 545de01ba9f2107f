#!/usr/bin/env bash
# Makes the mid-run state files under testdata/state-formats/VERSION/ that
# tests/state/format_states_test.sh resumes with the current logtide: each case is a job run by
# OLD_LOGTIDE with --state --hold over the first part of its inputs, then stopped; its state,
# its output so far and the output of one uninterrupted run of OLD_LOGTIDE over the whole
# inputs are kept beside the inputs' two parts.
#
# Usage: make_format_states.sh OLD_LOGTIDE GENERATOR OUT_DIR
# (GENERATOR is build/logtide_gen; OUT_DIR e.g. testdata/state-formats/f7668ee.) Run it again
# with each release whose state format changes, into a folder of its own.
set -eu
old=$(realpath "$1") gen=$(realpath "$2") out=$3
mkdir -p "$out"
out=$(realpath "$out")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case NAME LINES SPLIT GEN_ARGS -- FLAGS...: one input, app.log.
# Inputs are kept gzipped (part1.ndjson.gz, part2.ndjson.gz); the test unpacks them.
one() {
  local name=$1 lines=$2 split=$3 genargs=$4
  shift 4
  local d="$out/$name" w="$tmp/$name"
  rm -rf "$d" "$w"
  mkdir -p "$d" "$w"
  # shellcheck disable=SC2086
  "$gen" --lines "$lines" $genargs > "$w/all.ndjson"
  head -n "$split" "$w/all.ndjson" > "$w/part1.ndjson"
  tail -n +"$((split + 1))" "$w/all.ndjson" > "$w/part2.ndjson"
  printf '%s\n' "$@" > "$d/flags"
  (cd "$w" && cp part1.ndjson app.log &&
     "$old" -q "$@" --state s.db --hold app.log >> out.ndjson &&
     cp all.ndjson full.log && "$old" -q "$@" full.log > expected.ndjson)
  cp "$w/s.db" "$d/state.db"
  cp "$w/out.ndjson" "$d/out.ndjson"
  cp "$w/expected.ndjson" "$d/expected.ndjson"
  gzip -9n < "$w/part1.ndjson" > "$d/part1.ndjson.gz"
  gzip -9n < "$w/part2.ndjson" > "$d/part2.ndjson.gz"
  echo "$name: $(wc -l < "$d/out.ndjson") records before the stop, $(wc -l < "$d/expected.ndjson") in all"
}

G="--seed 7 --users 300 --rate-per-s 50 --disorder-ms 3000 --late-fraction 0.02"
one tumbling 1500 900 "$G" --window tumbling:5s --by service --agg count --agg 'sum(bytes)' --agg 'avg(latency_ms)' --delay 2s
one sliding-update-lateness 1500 800 "$G" --window sliding:10s:5s --by service --agg count --agg 'max(latency_ms)' --delay 1s --lateness 8s --emit update
one session 1500 700 "$G" --window session:4s --by user --agg count --agg 'first(path)' --agg 'last(path)' --delay 1s
one sketches 1500 1000 "$G" --window tumbling:10s --by service --agg 'p99(latency_ms)' --agg 'approx_count_distinct(user)' --agg 'top_k(path, 3)' --delay 2s
one where-derived 1500 600 "$G" --window tumbling:5s --by service --by 'class=floor(status / 100)' --where 'status >= 200' --agg count --agg 'errors=count() filter status >= 500' --delay 1s
one idle-timeout 1500 750 "$G" --window tumbling:5s --by method --agg count --delay 1s --idle-timeout 1000h
# Shapes of later versions, made where OLD_LOGTIDE has their flags: early records (with the
# revisions the state keeps), a calendar window in a zone (the zone block), --having.
knows() { "$old" --help 2>&1 | grep -q -- "$1"; }
if knows '--early '; then
  one early-revisions 1500 800 "$G" --window tumbling:10s --by service --agg count --agg 'max(latency_ms)' --delay 1s --early 2s --lateness 5s --emit update
fi
if knows '--tz '; then
  one tz-days 1500 700 "$G" --window tumbling:1d --tz Europe/Berlin --by service --agg count --agg 'sum(bytes)' --delay 1s
fi
if knows '--having '; then
  one having 1500 900 "$G" --window tumbling:5s --by service --agg count --having 'count >= 3' --delay 2s
fi

# Two inputs, one of them a finished gzip file (old.log.gz, kept as it is), the other growing.
# Which input a run reads first depends on where the run before it stopped (each run aligns
# the inputs it has), so events late in one run may not be in another: the data has none
# (disorder within --delay).
multi() {
  local name=$1
  shift
  local d="$out/$name" w="$tmp/$name"
  rm -rf "$d" "$w"
  mkdir -p "$d" "$w"
  # shellcheck disable=SC2086
  "$gen" --lines 1500 --seed 7 --users 300 --rate-per-s 50 --disorder-ms 1000 > "$w/all.ndjson"
  head -n 500 "$w/all.ndjson" | gzip -9n > "$w/old.log.gz"
  sed -n '501,1100p' "$w/all.ndjson" > "$w/part1.ndjson"
  tail -n +1101 "$w/all.ndjson" > "$w/part2.ndjson"
  printf '%s\n' "$@" > "$d/flags"
  (cd "$w" && cp part1.ndjson app.log &&
     "$old" -q "$@" --state s.db --hold old.log.gz app.log >> out.ndjson &&
     cat part1.ndjson part2.ndjson > full.log && "$old" -q "$@" old.log.gz full.log > expected.ndjson)
  cp "$w/s.db" "$d/state.db"
  cp "$w/out.ndjson" "$d/out.ndjson"
  cp "$w/expected.ndjson" "$d/expected.ndjson"
  cp "$w/old.log.gz" "$d/old.log.gz"
  gzip -9n < "$w/part1.ndjson" > "$d/part1.ndjson.gz"
  gzip -9n < "$w/part2.ndjson" > "$d/part2.ndjson.gz"
  echo "$name: $(wc -l < "$d/out.ndjson") records before the stop, $(wc -l < "$d/expected.ndjson") in all"
}
multi two-inputs-gzip --window tumbling:5s --by service --agg count --agg 'sum(bytes)' --delay 2s
