#!/usr/bin/env bash
# Builds the Debian package with cpack and checks it without touching the system's packages: its
# control fields (maintainer, dependencies, Recommends: bash-completion), its files (a stripped
# binary whose debug symbols are in the -dbgsym package, the man page, the completions, the
# copyright and changelog Debian policy asks for), then unpacks it into a private root
# (dpkg-deb -x), runs the binary from there and has man, bash, zsh and fish find their files in
# it. It never runs dpkg -i or -r, and checks at the end that the system's logtide package, if
# any, and /usr/bin/logtide are as they were.
# Needs dpkg-deb, cpack and binutils; exits 77 (skipped) without them.
# Usage: deb_test.sh BUILD_DIR
set -u
build=$(realpath "$1")
source_dir=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
for tool in dpkg-deb dpkg-parsechangelog cpack readelf; do
  command -v $tool > /dev/null || { echo "skipped: needs $tool (.ci/install-deps installs it)"; exit 77; }
done
source "$source_dir/tests/lib/checks.sh"

system_before=$(dpkg-query -W -f='${Status} ${Version}' logtide 2> /dev/null; ls -l --time-style=full-iso /usr/bin/logtide 2> /dev/null)
(cd "$build" && cpack -G DEB -B "$work/out" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls out/logtide_*.deb)
ddeb=$(ls out/logtide-dbgsym_*.ddeb 2> /dev/null)
field() { dpkg-deb -f "$deb" "$1"; }
version=$(field Version)

# The control file.
check "the version is the project's" test "$version" = "$(sed -n 's/^project(logtide VERSION \([0-9.]*\) .*/\1/p' "$source_dir/CMakeLists.txt")"
maintainer=$(field Maintainer)
check "a maintainer NAME <EMAIL> that is not on localhost [$maintainer]" \
  bash -c '[[ $1 =~ ^[^\<\>]+\ \<[^@\<\>\ ]+@[^@\<\>\ ]+\.[a-z]+\>$ && $1 != *@localhost* ]]' - "$maintainer"
check "it depends on simdjson" grep -q libsimdjson <<< "$(field Depends)"
check "it recommends bash-completion" grep -qw bash-completion <<< "$(field Recommends)"

# The files.
contents=$(dpkg-deb -c "$deb")
for f in usr/bin/logtide usr/share/man/man1/logtide.1.gz usr/share/bash-completion/completions/logtide \
         usr/share/zsh/vendor-completions/_logtide usr/share/fish/vendor_completions.d/logtide.fish \
         usr/share/doc/logtide/copyright usr/share/doc/logtide/copyright.embedded \
         usr/share/doc/logtide/changelog.gz; do
  check "the package holds /$f" grep -q " \./$f\$" <<< "$contents"
done

# Unpacked into a private root: nothing of it is installed on the system.
root=$work/root
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x"
bin=$root/usr/bin/logtide
sections=$(readelf -S --wide "$bin")
check "the binary has no debug sections" bash -c '! grep -q "\.debug_" <<< "$1"' - "$sections"
check "the binary has no symbol table" bash -c '! grep -q "\.symtab" <<< "$1"' - "$sections"
build_id=$(readelf -n "$bin" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
check "the binary has a build id" test -n "$build_id"
# Its debug information, where the build has any, is in the -dbgsym package under its build id.
if readelf -S --wide "$build/logtide" | grep -q '\.debug_info'; then
  check "a -dbgsym package is built beside it" test -n "$ddeb"
  if [ -n "$ddeb" ]; then
    dpkg-deb -x "$ddeb" dbg || fail "dpkg-deb -x the -dbgsym package"
    debug=dbg/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug
    check "the -dbgsym package holds the binary's debug information" \
      bash -c 'readelf -S --wide "$1" 2> /dev/null | grep -q "\.debug_info"' - "$debug"
    check "the -dbgsym package names the binary" grep -qx "Package: logtide-dbgsym" <<< "$(dpkg-deb -f "$ddeb" | grep ^Package:)"
  fi
fi

doc=$root/usr/share/doc/logtide
check "copyright is in Debian's machine-readable format" \
  grep -qx "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" "$doc/copyright"
check "copyright has the license's text" bash -c 'grep -qx "License: Expat" "$1" && grep -q "^ Permission is hereby granted" "$1"' - "$doc/copyright"
check "copyright names its contact, the maintainer" grep -qxF "Upstream-Contact: $maintainer" "$doc/copyright"
gzip -dc "$doc/changelog.gz" > changelog || fail "changelog.gz is not gzip"
check "the changelog's last entry is this version" test "$(dpkg-parsechangelog -l changelog -S Version)" = "$version"
check "the changelog's last entry is the maintainer's" test "$(dpkg-parsechangelog -l changelog -S Maintainer)" = "$maintainer"

got=$("$bin" --version)
check "the unpacked binary runs --version [$got]" bash -c '[[ $1 == "logtide $2 (state format "*")" ]]' - "$got" "$version"
check "the unpacked binary aggregates" \
  bash -c "printf '%s\n' '{\"ts\":\"2024-05-01T10:00:10Z\"}' | '$bin' --window tumbling:1m | grep -q '\"count\":1'"
check "man finds the page in the root" test "$(man -M "$root/usr/share/man" -w logtide)" = "$root/usr/share/man/man1/logtide.1.gz"
# bash-completion looks in XDG_DATA_DIRS/bash-completion/completions for a command's file.
if [ -f /usr/share/bash-completion/bash_completion ]; then
  check "bash-completion loads the completion from the root" env -i HOME="$work" XDG_DATA_DIRS="$root/usr/share" \
    bash --norc -c '. /usr/share/bash-completion/bash_completion; __load_completion logtide && complete -p logtide | grep -q _logtide'
fi
if command -v zsh > /dev/null; then
  check "zsh finds the completion in the root" env HOME="$work" zsh -fc \
    'fpath=("$1"/usr/share/zsh/vendor-completions $fpath); autoload -Uz compinit && compinit -u -D && [ "$_comps[logtide]" = _logtide ]' - "$root"
fi
if command -v fish > /dev/null; then
  check "fish finds the completion in the root" bash -c \
    "HOME='$work' PATH='$root/usr/bin':\$PATH XDG_DATA_DIRS='$root/usr/share' fish -c 'complete -C \"logtide --explain=sql:d\"' | grep -q '^--explain=sql:duckdb'"
fi

check "the system's packages are as they were" \
  test "$(dpkg-query -W -f='${Status} ${Version}' logtide 2> /dev/null; ls -l --time-style=full-iso /usr/bin/logtide 2> /dev/null)" = "$system_before"
finish
