#!/usr/bin/env bash
# Measures logtide's start-up (issue 28 item 14): the shared libraries the dynamic loader maps
# and the relocations it does (LD_DEBUG=statistics), the instructions executed from exec to
# exit (valgrind's callgrind, when installed: the same count on a busy machine as on a quiet
# one), and the wall time of many runs (minimum, median and mean, in ms) of `logtide --version`
# and of a tiny real job (one tumbling window over a one-line file).
#
# usage: bench/startup.sh [BINARY] [RUNS]     (defaults: build/logtide, 200)
#
# The wall times move with the machine's load; the minimum is the closest to a quiet machine's.
# Nothing here asserts a time: it prints numbers to compare before and after a change.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$here/build/logtide}")
runs=${2:-200}
[ -x "$bin" ] || { echo "startup.sh: no executable at $bin (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"ts":"2024-01-01T00:00:01Z","msg":"x"}\n' > "$tmp/one.ndjson"
version=("$bin" --version)
tiny=("$bin" --window tumbling:1m "$tmp/one.ndjson")
"${tiny[@]}" > "$tmp/out" || { echo "startup.sh: the tiny job failed" >&2; exit 1; }

echo "binary: $bin"
echo "shared libraries (ldd, besides the loader and the vDSO): $(ldd "$bin" | grep -c '=>')"
LD_DEBUG=statistics "$bin" --version 2>&1 >/dev/null |
  sed -n 's/^[[:space:]]*[0-9]*:[[:space:]]*\(final number of relocations\|final number of relocations from cache\|number of relative relocations\):[[:space:]]*/  \1: /p'

if command -v valgrind > /dev/null; then
  for name in version tiny; do
    declare -n cmd=$name
    ir=$(valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "${cmd[@]}" 2>&1 >/dev/null |
         sed -n 's/.*Collected : *//p')
    echo "instructions ($name): $ir"
  done
else
  echo "instructions: valgrind is not installed"
fi

# Per-run wall time from bash's $EPOCHREALTIME (no process started to read the clock).
time_runs() {
  local -a ms=()
  local i t0 t1
  for ((i = 0; i < runs; i++)); do
    t0=$EPOCHREALTIME
    "$@" > /dev/null
    t1=$EPOCHREALTIME
    ms+=("$(( (${t1/./} - ${t0/./}) ))")
  done
  printf '%s\n' "${ms[@]}" | sort -n |
    awk '{ v[NR] = $1; s += $1 } END {
      printf "min %.2f ms, median %.2f ms, mean %.2f ms over %d runs\n",
             v[1] / 1000, v[int((NR + 1) / 2)] / 1000, s / NR / 1000, NR }'
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wall (--version): $(time_runs "${version[@]}")"
echo "wall (tiny job):  $(time_runs "${tiny[@]}")"
