# The shell tests' common part, sourced after `set -u`: a scratch folder that is removed on exit
# and is the working directory, and counted checks. End a test with `finish`.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# check NAME CONDITION...: runs the condition, counts it
check() { local name=$1; shift; if "$@"; then ok; else fail "$name"; fi; }
# Prints the counts on the line the test runners read, and exits 0 only when nothing failed.
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}
