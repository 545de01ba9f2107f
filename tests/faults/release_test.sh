#!/usr/bin/env bash
# The logtide binary injects no faults: the environment that makes the tests' build
# (logtide_faults) kill itself, fail its writes or run a command changes nothing in a real run.
# Usage: release_test.sh LOGTIDE_BINARY SAMPLE_FILE
set -euo pipefail
bin=$1 sample=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$bin" -q --window tumbling:1m --state plain.db -o plain.ndjson "$sample"
LOGTIDE_TEST_KILL_AT=before-flush:1 LOGTIDE_TEST_FAIL_WRITES=0 LOGTIDE_TEST_COMPACT_SLACK=1000000000 \
  LOGTIDE_TEST_RUN_AT=before-flush:1 LOGTIDE_TEST_RUN='touch hook-ran' \
  "$bin" -q --window tumbling:1m --state hooked.db -o hooked.ndjson "$sample"
[ -s plain.ndjson ] || { echo "FAIL: no output"; exit 1; }
cmp plain.ndjson hooked.ndjson
[ ! -e hook-ran ] || { echo "FAIL: LOGTIDE_TEST_RUN ran"; exit 1; }
echo "1 passed, 0 failed"
