#!/usr/bin/env bash
# Compressed inputs (issue 14): gzip and zstd files and standard input give the bytes of the
# plain file; a log compressed between --state runs is the same input, continued at its offset;
# truncated and damaged archives stop the run with exit 1, a message naming the file and the
# decompressed offset, and no record that the whole input would not give.
# Usage: compressed_test.sh LOGTIDE LOGTIDE_GEN   (the logtide built with fault hooks)
set -u
bin=$(realpath "$1")
gen=$(realpath "$2")
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
for tool in gzip zstd; do
  command -v $tool > /dev/null || { echo "the test needs $tool (.ci/install-deps installs it)"; exit 2; }
done
# Every record of $1 is a record of $2 (a run stopped early wrote a part of the right output).

"$gen" --lines 30000 --seed 14 --rate-per-s 300 --disorder-ms 800 > all.ndjson
gzip -n -c all.ndjson > all.gz
zstd -q -c all.ndjson > all.zst
# Multi-member gzip and multi-frame zstd: the log in three pieces, each compressed alone.
split -n l/3 all.ndjson part.
cat part.aa part.ab part.ac | cmp -s - all.ndjson || fail "split"
for p in part.aa part.ab part.ac; do gzip -n -c $p; done > multi.gz
for p in part.aa part.ab part.ac; do zstd -q -c $p; done > multi.zst

# --- the same bytes as the plain file, for several query shapes --------------------------------
queries=(
  "--window tumbling:1m --by service --agg count --agg sum(bytes) --agg avg(latency_ms)"
  "--window sliding:10m:1m --by host --agg count --agg max(latency_ms) --delay 1s"
  "--window session:2s --by user --agg count --emit update --lateness 1s"
  "--window tumbling:10s --by status --agg count --format csv --threads 1"
)
for q in "${queries[@]}"; do
  read -ra Q <<< "$q"
  "$bin" -q "${Q[@]}" all.ndjson > ref.out || fail "plain run: $q"
  for f in all.gz all.zst multi.gz multi.zst; do
    "$bin" -q "${Q[@]}" $f > got.out || fail "$f: exit $? ($q)"
    check "$f gives the plain file's bytes ($q)" cmp -s got.out ref.out
  done
  # Standard input, named or not, compressed either way.
  "$bin" -q "${Q[@]}" < all.gz > got.out || fail "gzip on stdin: exit $?"
  check "gzip on standard input ($q)" cmp -s got.out ref.out
  zstd -q -dc all.zst | zstd -q -c | "$bin" -q "${Q[@]}" - > got.out || fail "zstd pipe: exit $?"
  check "zstd through a pipe ($q)" cmp -s got.out ref.out
done

# --- several inputs, plain and compressed, read watermark-aligned -------------------------------
Q=(--window tumbling:1m --by service --agg count --agg 'sum(bytes)' --delay 2s)
awk 'NR % 3 == 0' all.ndjson > a.ndjson
awk 'NR % 3 == 1' all.ndjson > b.ndjson
awk 'NR % 3 == 2' all.ndjson > c.ndjson
gzip -n -c b.ndjson > b.gz
zstd -q -c c.ndjson > c.zst
"$bin" -q "${Q[@]}" a.ndjson b.ndjson c.ndjson > ref3.out
"$bin" -q "${Q[@]}" a.ndjson b.gz c.zst > got.out || fail "mixed inputs: exit $?"
check "plain, gzip and zstd inputs together give the plain inputs' bytes" cmp -s got.out ref3.out
"$bin" -q "${Q[@]}" a.ndjson b.gz - < c.zst > got.out || fail "mixed with stdin: exit $?"
check "with a compressed standard input among them" cmp -s got.out ref3.out

# --- --state: a log read with --hold, then rotated and compressed, then continued -------------
# Events in order (no disorder), so the rotated generations read one after the other give the
# records of one batch run over the whole history.
"$gen" --lines 24000 --seed 15 --rate-per-s 200 > hist.ndjson
Q=(--window tumbling:10s --by service --agg count --agg 'sum(bytes)' --agg 'last(path)')
"$bin" -q "${Q[@]}" hist.ndjson > ref-hist.out
reset() { rm -rf run && mkdir run; }
lines() { sed -n "$1,$2p" "$work/hist.ndjson"; }
# gzip: app.log read to its end; 2000 more lines before the rotation; app.log -> app.log.1.gz.
reset
lines 1 8000 > run/app.log
(cd run && "$bin" -q "${Q[@]}" --state s.db --hold -o out app.log) || fail "rotation gz: run 1"
lines 8001 10000 >> run/app.log
(cd run && mv app.log app.log.1 && gzip -n app.log.1 &&
  lines 10001 16000 > app.log && "$bin" -q "${Q[@]}" --state s.db --hold -o out app.log.1.gz app.log) ||
  fail "rotation gz: run 2"
# zstd: the next rotation compresses the second generation with zstd; the first is gone.
(cd run && rm app.log.1.gz && mv app.log app.log.1 && zstd -q --rm app.log.1 &&
  lines 16001 24000 > app.log &&
  "$bin" -q "${Q[@]}" --state s.db -o out app.log.1.zst app.log) || fail "rotation zst: run 3"
check "rotation into .gz then .zst under --state: one batch run's bytes" cmp -s run/out ref-hist.out

# A run killed at its 3rd checkpoint inside a compressed file resumes inside it.
reset
gzip -n -c hist.ndjson > run/app.log.gz
(cd run && LOGTIDE_TEST_KILL_AT=after-commit:3 "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 5000 \
  -o out app.log.gz 2> /dev/null)
[ -s run/s.db ] || fail "kill: no state"
(cd run && "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 5000 -o out app.log.gz) || fail "kill: resume"
check "killed inside a .gz and resumed: one batch run's bytes" cmp -s run/out ref-hist.out
check "kill: the resume started inside the file" bash -c "'$bin' inspect run/s.db | grep -q '\"line\":24000'"

# A compressed generation that does not hold what the state read from it is refused (exit 5),
# or read again from its start with --reread-replaced.
reset
lines 1 8000 > run/app.log
(cd run && "$bin" -q "${Q[@]}" --state s.db --hold -o out app.log) || fail "replaced: run 1"
(cd run && head -n 7000 app.log | gzip -n > app.log.1.gz && rm app.log)
(cd run && "$bin" -q "${Q[@]}" --state s.db --hold -o out app.log.1.gz 2> err); rc=$?
check "a shorter compressed generation is refused with exit 5 (got $rc)" [ "$rc" = 5 ]
check "the refusal says what happened" grep -q "app.log.1.gz decompresses to .* fewer than the" run/err
# Same first bytes and length, but line 8000, just before the offset, is another.
lines 1 9000 | sed '8000s/"trace_id"/"trace_ID"/' | gzip -n > run/app.log.1.gz
(cd run && "$bin" -q "${Q[@]}" --state s.db --hold -o out app.log.1.gz 2> err); rc=$?
check "a rewritten compressed generation is refused with exit 5 (got $rc)" [ "$rc" = 5 ]
check "the refusal names the changed bytes" grep -q "have changed" run/err
(cd run && "$bin" "${Q[@]}" --state s.db --hold --reread-replaced -o out app.log.1.gz 2> err); rc=$?
check "--reread-replaced reads it again from its start (exit $rc)" [ "$rc" = 0 ]
check "--reread-replaced warns" grep -q "reading it from its start" run/err
check "--reread-replaced: read to its end" bash -c "'$bin' inspect run/s.db | grep -q '\"line\":9000'"

# --- truncated and damaged archives --------------------------------------------------------------
Q=(--window tumbling:1m --by service --agg count --agg 'sum(bytes)')
"$bin" -q "${Q[@]}" all.ndjson > ref.out
size=$(stat -c %s all.gz)
head -c $((size * 2 / 3)) all.gz > cut.gz
"$bin" -q "${Q[@]}" cut.gz > got.out 2> err; rc=$?
check "truncated gzip: exit 1 (got $rc)" [ "$rc" = 1 ]
check "truncated gzip: the message names the file, the offset and the cause" \
  grep -Eq "cut.gz: the gzip data ends inside a member .* at decompressed offset [0-9]+" err
# A compressed file is checked whole before its first byte is used: no record comes out.
check "truncated gzip: no record is written" bash -c "! test -s got.out"
size=$(stat -c %s all.zst)
head -c $((size / 2)) all.zst > cut.zst
"$bin" -q "${Q[@]}" --threads 1 cut.zst > got.out 2> err; rc=$?
check "truncated zstd: exit 1 (got $rc)" [ "$rc" = 1 ]
check "truncated zstd: the message" grep -Eq "cut.zst: the zstd data ends inside a frame .* decompressed offset [0-9]+" err
check "truncated zstd: no record is written" bash -c "! test -s got.out"
"$bin" -q "${Q[@]}" < cut.zst > got.out 2> err; rc=$?
check "truncated zstd on standard input: exit 1 (got $rc)" [ "$rc" = 1 ]
check "truncated zstd on standard input: named" grep -q "<stdin>: the zstd data ends inside a frame" err
# Damage the decoder finds where it is (here: the first block): nothing after it is read.
for f in all.gz all.zst; do
  cp $f bad.$f
  head -c 256 /dev/zero | dd of=bad.$f bs=1 seek=12 conv=notrunc status=none
  "$bin" -q "${Q[@]}" bad.$f > got.out 2> err; rc=$?
  check "damaged $f: exit 1 (got $rc)" [ "$rc" = 1 ]
  check "damaged $f: the message names the file and the offset" grep -Eq "bad.$f: damaged .* data: .*decompressed offset [0-9]+" err
  check "damaged $f: no record is written" bash -c "! test -s got.out"
done
# Damage that decodes cleanly (a byte of a string changed) is found by the member's CRC-32 or
# the frame's checksum at its end, and the file is checked whole before it is used: the run
# fails, naming it, and no record holding the damaged bytes is written.
for f in all.gz all.zst; do
  cp $f bad.$f
  size=$(stat -c %s $f)
  printf '\x55' | dd of=bad.$f bs=1 seek=$((size / 2)) conv=notrunc status=none
  "$bin" -q "${Q[@]}" bad.$f > got.out 2> err; rc=$?
  check "damaged $f (a byte in the middle): exit 1 (got $rc)" [ "$rc" = 1 ]
  check "damaged $f (a byte in the middle): the message" grep -Eq "bad.$f: damaged .* data: .*decompressed offset [0-9]+" err
  check "damaged $f (a byte in the middle): no record is written" bash -c "! test -s got.out"
done
# Under --state: the error, and the next run stops at the same place again.
reset
cp cut.gz run/app.log.gz
(cd run && "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 1000 -o out app.log.gz 2> err); rc=$?
check "truncated gzip under --state: exit 1 (got $rc)" [ "$rc" = 1 ]
(cd run && "$bin" -q "${Q[@]}" --state s.db --checkpoint-every 1000 -o out app.log.gz 2> err); rc=$?
check "truncated gzip under --state, run again: exit 1 (got $rc)" [ "$rc" = 1 ]
check "truncated gzip under --state: still named" grep -q "app.log.gz: the gzip data ends inside a member" run/err

finish
