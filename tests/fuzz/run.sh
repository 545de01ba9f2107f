#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 15) over its seed corpus, with a fixed seed,
# and fails when any reports a crash, a sanitizer error, a failed check, a hang or an
# allocation past its limit. New inputs a run finds go to a scratch folder, not to the seed
# corpus; a failing input is kept in BUILD_DIR/fuzz-artifacts/ and the command that replays it
# is printed.
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...] [-- LIBFUZZER_FLAG...]
#
# BUILD_DIR is a build configured with -DLOGTIDE_FUZZ=ON (tests/fuzz/README.md). Without
# TARGETs, all of them run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?usage: run.sh BUILD_DIR [SECONDS] [TARGET...] [-- LIBFUZZER_FLAG...]}"
shift
seconds=15
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  seconds="$1"
  shift
fi
targets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  targets+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the --
[ ${#targets[@]} -gt 0 ] || targets=(extractor time specs state lineformat)

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
passed=0
failed=0
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "fuzz_$t: not built in $build (configure it with -DLOGTIDE_FUZZ=ON)"; exit 2; }
  mkdir -p "$scratch/$t"
  log="$scratch/$t.log"
  start=$(date +%s)
  # -timeout: one input running 10 s is a hang; -malloc_limit_mb: one allocation of 512 MB is a
  # length or count trusted too far (no seed needs a tenth of it).
  if TMPDIR="$scratch" "$bin" -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$@" \
      "$scratch/$t" "$here/corpus/$t" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    echo "fuzz_$t: ok, $runs runs in $(( $(date +%s) - start )) s, $cov"
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "fuzz_$t: FAILED"
    # The report: from the first sanitizer or check line on, without the dictionary dump.
    grep -a -v '^"' "$log" | sed -n '/ERROR\|runtime error\|check failed\|==[0-9]*==/,$p' | head -n 80
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    [ -n "$artifact" ] && echo "replay: $bin $artifact"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
