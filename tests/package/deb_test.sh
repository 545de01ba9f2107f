#!/usr/bin/env bash
# Builds the Debian package with cpack, checks its contents, installs it with dpkg, runs the
# installed logtide and finds its man page and completion, then removes it.
# Needs root and dpkg; exits 77 (skipped) otherwise, or when a logtide package is already
# installed (it is not ours to replace).
# Usage: deb_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
if [ "$(id -u)" != 0 ] || ! command -v dpkg >/dev/null; then echo "skipped: needs root and dpkg"; exit 77; fi
if dpkg-query -W -f='${Status}' logtide 2>/dev/null | grep -q "install ok installed"; then
  echo "skipped: a logtide package is already installed"; exit 77
fi
out=$(mktemp -d)
trap 'dpkg -r logtide >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" > "$out/cpack.log") || { cat "$out/cpack.log"; exit 1; }
deb=$(ls "$out"/logtide_*.deb)
passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@" > "$out/check.log" 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $what"; cat "$out/check.log"; fi
}
contents=$(dpkg-deb -c "$deb")
check "package holds the binary" grep -q ' ./usr/bin/logtide$' <<< "$contents"
check "package holds the man page" grep -q ' ./usr/share/man/man1/logtide.1.gz$' <<< "$contents"
check "package holds the bash completion" grep -q ' ./usr/share/bash-completion/completions/logtide$' <<< "$contents"
check "package holds the zsh completion" grep -q ' ./usr/share/zsh/vendor-completions/_logtide$' <<< "$contents"
check "package holds the fish completion" grep -q ' ./usr/share/fish/vendor_completions.d/logtide.fish$' <<< "$contents"
check "package depends on simdjson" bash -c "dpkg-deb -f '$deb' Depends | grep -q libsimdjson"
check "dpkg installs it" dpkg -i "$deb"
check "installed logtide runs" bash -c '[ "$(/usr/bin/logtide --version)" = "logtide 0.1.0 (state format 3)" ]'
check "man finds the page" bash -c '[ "$(man -w logtide)" = /usr/share/man/man1/logtide.1.gz ]'
if command -v zsh >/dev/null; then
  check "zsh finds the completion" zsh -fc 'autoload -Uz compinit && compinit -u -D && [ "$_comps[logtide]" = _logtide ]'
fi
if command -v fish >/dev/null; then
  check "fish finds the completion" bash -c "HOME=\$(mktemp -d) fish -c 'complete -C \"logtide --win\"' | grep -q '^--window'"
fi
check "the installed binary aggregates" bash -c "printf '%s\n' '{\"ts\":\"2024-05-01T10:00:10Z\"}' | /usr/bin/logtide --window tumbling:1m | grep -q '\"count\":1'"
check "dpkg removes it" dpkg -r logtide
check "the binary is gone" bash -c '! [ -e /usr/bin/logtide ]'
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
