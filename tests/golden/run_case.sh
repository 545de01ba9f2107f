#!/usr/bin/env bash
# Runs one golden case: testdata/cases/<area>/<NNNN-slug>/.
#   cmd                 shell text run in a scratch copy of the case folder; `logtide` is the binary
#                       (a shell function; $bin holds its path, for commands run by another shell)
#   expected            expected standard output (required)
#   expected-stderr     expected standard error (optional; otherwise not checked)
#   expected-exit       expected exit status (optional; default 0)
#   expected-file-NAME  expected content of the file NAME the command wrote (optional)
# With LOGTIDE_UPDATE=1 the expectations that exist (and `expected`) are rewritten from this run,
# for review with `git diff`.
# Usage: run_case.sh LOGTIDE_BINARY CASE_DIR
set -u
if [ $# -ne 2 ]; then
  echo "usage: run_case.sh LOGTIDE_BINARY CASE_DIR" >&2
  exit 2
fi
bin=$(realpath "$1")
case_dir=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$case_dir/." "$scratch/"
cd "$scratch" || exit 2
export bin
set +e
bash -c "logtide() { \"\$bin\" \"\$@\"; }; $(cat cmd)" > actual.stdout 2> actual.stderr < /dev/null
status=$?
set -e
expected_exit=0
[ -f "$case_dir/expected-exit" ] && expected_exit=$(cat "$case_dir/expected-exit")

if [ "${LOGTIDE_UPDATE:-0}" = 1 ]; then
  cp actual.stdout "$case_dir/expected"
  [ -f "$case_dir/expected-stderr" ] && cp actual.stderr "$case_dir/expected-stderr"
  if [ "$status" != 0 ] || [ -f "$case_dir/expected-exit" ]; then echo "$status" > "$case_dir/expected-exit"; fi
  for f in "$case_dir"/expected-file-*; do
    [ -e "$f" ] || continue
    cp "${f##*/expected-file-}" "$f" 2>/dev/null || true
  done
  echo "updated $case_dir"
  exit 0
fi

fail=0
if [ "$status" != "$expected_exit" ]; then
  echo "FAIL $case_dir: exit status $status, expected $expected_exit"
  fail=1
fi
if ! diff -u "$case_dir/expected" actual.stdout > diff.out; then
  echo "FAIL $case_dir: standard output differs (expected vs actual):"; cat diff.out; fail=1
fi
if [ -f "$case_dir/expected-stderr" ] && ! diff -u "$case_dir/expected-stderr" actual.stderr > diff.out; then
  echo "FAIL $case_dir: standard error differs (expected vs actual):"; cat diff.out; fail=1
fi
for f in "$case_dir"/expected-file-*; do
  [ -e "$f" ] || continue
  name=${f##*/expected-file-}
  if ! diff -u "$f" "$name" > diff.out 2>&1; then
    echo "FAIL $case_dir: file $name differs (expected vs actual):"; cat diff.out; fail=1
  fi
done
if [ "$fail" = 1 ] && [ ! -f "$case_dir/expected-stderr" ]; then
  echo "--- standard error was:"; cat actual.stderr
fi
exit $fail
