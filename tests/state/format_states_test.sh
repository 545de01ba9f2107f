#!/usr/bin/env bash
# State files are forever: every mid-run state under testdata/state-formats/VERSION/ (made by that
# version's logtide with tests/state/make_format_states.sh) is resumed with this logtide. The
# job goes on in two runs, a --hold run over half of what came since (the state is migrated at
# its first checkpoint) and a last one, and its output must be byte-identical to the one
# uninterrupted run of the version that wrote the state. That version's output is also what
# this logtide writes in one run over the same inputs: the cases' semantics did not change.
# Update mode's records deliberately gained "phase" and "final" and, with lateness, a closing
# record per window and key (issue 29; man/logtide.1, SEMANTICS): its output is compared with
# the closing records left out (its cases here have lateness: their final records are the
# closing ones) and those two fields taken off, the rest byte for byte.
#
# Each case also goes through a savepoint first (state export, then state import as a new state
# file: issue 33 item 3), and ends with the same bytes.
# With LOGTIDE_FAULTS (the test build's logtide_faults), each case is also killed by SIGKILL at
# points of the first checkpoint after the migration (before its commit: the old format stays
# and is migrated again; after it: the new format, outputs cut back on resuming) and resumed:
# the same bytes.
#
# Usage: format_states_test.sh LOGTIDE TESTDATA_DIR [LOGTIDE_FAULTS]
set -u
bin=$(realpath "$1") data=$(realpath "$2")/state-formats
faults=${3:+$(realpath "$3")}
. "$(dirname "$0")/../lib/checks.sh"

cases=0
runs=("" savepoint)
[ -n "$faults" ] && runs+=(before-commit after-commit)
for d in "$data"/*/*/; do
 for kill_at in "${runs[@]}"; do
  d=${d%/}
  name="$(basename "$(dirname "$d")")/$(basename "$d")"
  cases=$((cases + 1))
  mapfile -t flags < "$d/flags"
  w="$work/$cases"
  mkdir -p "$w"
  (
    cd "$w" || exit 2
    inputs=()
    [ -f "$d/old.log.gz" ] && cp "$d/old.log.gz" . && inputs+=(old.log.gz)
    gzip -dc "$d/part1.ndjson.gz" > app.log
    gzip -dc "$d/part2.ndjson.gz" > part2
    cp "$d/state.db" s.db
    if [ "$kill_at" = savepoint ]; then
      # The state goes through a savepoint first: exported and imported as a new state file.
      "$bin" state export s.db > s.savepoint || exit 7
      rm s.db
      "$bin" state import s.savepoint s.db || exit 8
      kill_at=
    fi
    cp "$d/out.ndjson" out.ndjson
    half=$(( $(wc -l < part2) / 2 ))
    head -n "$half" part2 >> app.log
    if [ -n "$kill_at" ]; then
      # Checkpoints count over the job's runs: the next is the first after the migration.
      n=$("$bin" inspect s.db | sed -n 's/.*"checkpoints":\([0-9]*\).*/\1/p')
      [ -n "$n" ] || exit 9
      LOGTIDE_TEST_KILL_AT="$kill_at:$((n + 1))" "$faults" -q "${flags[@]}" --state s.db --hold "${inputs[@]}" \
        app.log >> out.ndjson
      [ $? = 137 ] || exit 10
    fi
    "$bin" -q "${flags[@]}" --state s.db --hold "${inputs[@]}" app.log >> out.ndjson || exit 11
    tail -n +"$((half + 1))" part2 >> app.log
    "$bin" -q "${flags[@]}" --state s.db "${inputs[@]}" app.log >> out.ndjson || exit 12
    # A version that wrote "phase" already writes today's update records: compared as they are.
    as_before() {
      case " ${flags[*]} " in
        *" --emit update "*)
          if grep -q '"phase"' "$d/expected.ndjson"; then cat "$1"; else
            sed -e '/"final":true}$/d' -e 's/,"phase":"[a-z_]*","final":false}$/}/' "$1"; fi ;;
        *) cat "$1" ;;
      esac
    }
    cmp -s <(as_before out.ndjson) "$d/expected.ndjson" || exit 13
    [ -n "$kill_at" ] && exit 0
    "$bin" -q "${flags[@]}" "${inputs[@]}" app.log > one-run.ndjson || exit 14
    cmp -s <(as_before one-run.ndjson) "$d/expected.ndjson" || exit 15
  )
  rc=$?
  case $kill_at in
    savepoint) name="$name, through a savepoint (state export, state import)" ;;
    ?*) name="$name, killed $kill_at the first checkpoint after the migration" ;;
  esac
  case $rc in
    0) ok ;;
    7) fail "$name: state export failed" ;;
    8) fail "$name: state import failed" ;;
    9) fail "$name: inspect gave no checkpoint count" ;;
    10) fail "$name: the kill hook did not fire" ;;
    11) fail "$name: the --hold run resumed from the old state failed" ;;
    12) fail "$name: the last run failed" ;;
    13) fail "$name: resumed output differs from the uninterrupted run of the version that wrote the state" ;;
    14) fail "$name: one run over the inputs failed" ;;
    15) fail "$name: one run of this logtide differs from one run of the version that wrote the state" ;;
    *) fail "$name: exit $rc" ;;
  esac
 done
done
check "at least one state format case was found" [ "$cases" -gt 0 ]
finish
