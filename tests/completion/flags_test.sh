#!/usr/bin/env bash
# Every flag in `logtide --help` is in each completion file: bash and zsh spell it as is, fish
# as `-l NAME` or `-s X`.
# Usage: flags_test.sh LOGTIDE_BINARY ROOT
set -u
bin=$(realpath "$1")
root=$(realpath "$2")
failed=0 passed=0
for flag in $("$bin" --help | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
  case $flag in
    --*) fish="-l ${flag#--}" ;;
    *)   fish="-s ${flag#-}" ;;
  esac
  for pair in "logtide.bash:$flag" "_logtide:$flag" "logtide.fish:$fish"; do
    file=${pair%%:*} spelled=${pair#*:}
    if grep -qE -- "(^|[^a-z-])$spelled([^a-z-]|$)" "$root/completions/$file"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "FAIL: $flag is in --help but not in completions/$file"
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
