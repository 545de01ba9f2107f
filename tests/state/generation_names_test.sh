#!/usr/bin/env bash
# Which inputs are a log's rotated generations (issue 28; man/logtide.1, Log rotation): a name
# that is another input's followed by a rotation's suffix (.1, .2.gz, -20240501) is finished,
# from a job's first run on; a name that merely shares the start (svc.log-worker, svc.log.json)
# is a live log of its own and holds the watermark back under --hold like any other. Either
# way a run killed at its first checkpoint and resumed writes what one run writes.
# Usage: generation_names_test.sh LOGTIDE_FAULTS (the build with the kill hook)
set -u
bin=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
Q=(-q --time-format epoch_ms --window tumbling:1s --agg count)

# run NAME: a --hold run over svc.log and NAME (NAME's last line is not finished), then the
# same after a kill at the first checkpoint and a resumed run; prints both outputs' records.
run() {
  local other=$1
  rm -rf one killed && mkdir one killed
  for d in one killed; do
    printf '{"ts":1000}\n{"ts":2000}\n{"ts":50000}\n' > $d/svc.log
    printf '{"ts":1500}\n{"ts":2500}\n{"ts":30' > "$d/$other"
  done
  (cd one && "$bin" "${Q[@]}" --state s.db --hold svc.log "$other" > out.ndjson) || fail "$other: the run failed"
  (cd killed && { LOGTIDE_TEST_KILL_AT=after-commit:1 "$bin" "${Q[@]}" --state s.db --hold svc.log "$other" > out.ndjson 2> /dev/null; } 2> /dev/null
   "$bin" "${Q[@]}" --state s.db --hold svc.log "$other" >> out.ndjson) || fail "$other: the resumed run failed"
}

# Events by window: [1s,2s) has 1000 and 1500, [2s,3s) has 2000 and 2500, [50s,51s) has 50000.
# svc.log-worker is a log of its own: its unfinished last line is left for the next run and it
# holds the watermark at its 2.5 s, so only [1s,2s) fires.
run svc.log-worker
check "svc.log-worker: one run writes the windows below its own watermark" \
  diff <(printf '%s\n' '{"window_start":"1970-01-01T00:00:01Z","window_end":"1970-01-01T00:00:02Z","count":2}') one/out.ndjson
check "svc.log-worker: killed and resumed, the same bytes" cmp -s one/out.ndjson killed/out.ndjson

# svc.log.1 is a generation of svc.log: finished, its last line is read as whole (a bad line:
# {"ts":30 is not JSON) and it holds nothing back, so svc.log's 50 s is the watermark (svc.log
# is live under --hold) and [2s,3s) fires too.
run svc.log.1
check "svc.log.1: a generation holds nothing back, from the first run" \
  diff <(printf '%s\n' '{"window_start":"1970-01-01T00:00:01Z","window_end":"1970-01-01T00:00:02Z","count":2}' \
                       '{"window_start":"1970-01-01T00:00:02Z","window_end":"1970-01-01T00:00:03Z","count":2}') one/out.ndjson
check "svc.log.1: killed and resumed, the same bytes" cmp -s one/out.ndjson killed/out.ndjson
finish
