#!/usr/bin/env bash
# Benchmark job 1 (issue 4): count, sum(bytes), avg(latency_ms) per service per minute, run by
# logtide, jq and Miller side by side on the same generated input, rounds interleaved, after
# checking that all of them compute the same table. Prints medians, MB/s, peak RSS and ratios.
# Also times the simdjson parse-only floor (bench/parse_floor.cc).
#
# Usage: bench/run.sh [BUILD_DIR] [LINES] [ROUNDS]      (defaults: build 1000000 5)
# jq and Miller are slow (~20 MB/s): they run on the first JQ_LINES lines (default 200000).
set -euo pipefail
build=${1:-build}
lines=${2:-1000000}
rounds=${3:-5}
jq_lines=${JQ_LINES:-200000}
work=${BENCH_DIR:-/tmp/logtide-bench}
mkdir -p "$work"
input=$work/logs-$lines.ndjson
small=$work/logs-$jq_lines.ndjson
[ -s "$input" ] || "$build/logtide_gen" --lines "$lines" --seed 1 > "$input"
[ -s "$small" ] || "$build/logtide_gen" --lines "$jq_lines" --seed 1 > "$small"
cat "$input" "$small" > /dev/null  # page cache

logtide_cmd() { "$build/logtide" -q --window tumbling:1m --by service --agg count --agg 'sum(bytes)' --agg 'avg(latency_ms)' "$1"; }
jq_cmd() {
  jq -n -c 'reduce inputs as $e ({}; .[$e.ts[0:16] + " " + $e.service] |= ((. // {c:0,s:0,l:0}) | .c += 1 | .s += $e.bytes | .l += $e.latency_ms))
            | to_entries[] | [.key, .value.c, .value.s, (.value.l / .value.c)]' "$1"
}
mlr_cmd() { mlr --ijsonl --ojsonl put '$minute = substr0($ts, 0, 15)' then stats1 -a count,sum,mean -f bytes,latency_ms -g minute,service "$1"; }
floor_cmd() { "$build/parse_floor" "$1"; }

# Normalise each tool's answer to "minute service count sum avg(6 decimals)", sorted.
norm_logtide() { jq -r '[.window_start[0:16], .service, .count, .sum_bytes, .avg_latency_ms] | "\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]*1000000|round)"' | sort; }
check() {
  local a b c
  a=$(logtide_cmd "$small" | norm_logtide)
  b=$(jq_cmd "$small" | jq -r '(.[0] | split(" ")) as $k | "\($k[0]) \($k[1]) \(.[1]) \(.[2]) \(.[3]*1000000|round)"' | sort)
  c=$(mlr_cmd "$small" | jq -r '"\(.minute) \(.service) \(.bytes_count) \(.bytes_sum) \(.latency_ms_mean*1000000|round)"' | sort)
  if [ "$a" != "$b" ] || [ "$a" != "$c" ]; then
    echo "results differ: logtide vs jq: $(diff <(echo "$a") <(echo "$b") | wc -l) lines, vs mlr: $(diff <(echo "$a") <(echo "$c") | wc -l) lines" >&2
    exit 1
  fi
  echo "check: logtide, jq and Miller agree on $(echo "$a" | wc -l) (minute, service) rows of $jq_lines lines"
}
check

# run NAME FILE FUNCTION: one timed run, appends "seconds peak_rss_kb" to $work/NAME.times
export build
export -f logtide_cmd jq_cmd mlr_cmd floor_cmd
run() {
  local name=$1 file=$2 fn=$3
  /usr/bin/time -f "%e %M" -o "$work/t" bash -c "$fn \"\$0\"" "$file" > /dev/null
  cat "$work/t" >> "$work/$name.times"
}
rm -f "$work"/*.times
for ((r = 0; r < rounds; r++)); do
  run logtide "$input" logtide_cmd
  run floor "$input" floor_cmd
  run jq "$small" jq_cmd
  run mlr "$small" mlr_cmd
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
big_mb=$(stat -c %s "$input" | awk '{print $1/1e6}')
small_mb=$(stat -c %s "$small" | awk '{print $1/1e6}')
printf "%-10s %10s %10s %10s %12s\n" tool input_MB median_s MB/s peak_RSS_MB
declare -A mbs
for name in logtide floor jq mlr; do
  mb=$big_mb; [ "$name" = jq ] || [ "$name" = mlr ] && mb=$small_mb
  s=$(cut -d' ' -f1 "$work/$name.times" | median)
  rss=$(cut -d' ' -f2 "$work/$name.times" | sort -n | tail -1)
  mbs[$name]=$(awk -v m="$mb" -v s="$s" 'BEGIN {printf "%.1f", m / s}')
  printf "%-10s %10.1f %10.3f %10s %12.1f\n" "$name" "$mb" "$s" "${mbs[$name]}" "$(awk -v k="$rss" 'BEGIN {print k/1024}')"
done
awk -v l="${mbs[logtide]}" -v f="${mbs[floor]}" -v j="${mbs[jq]}" -v m="${mbs[mlr]}" \
  'BEGIN {printf "ratios: logtide/jq %.1fx, logtide/mlr %.1fx, logtide/floor %.0f%%\n", l/j, l/m, 100*l/f}'
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), rounds: $rounds"
