#!/usr/bin/env bash
# Install the build tree into a scratch prefix (on no loader path), then:
# run the installed `tutti` with no LD_LIBRARY_PATH (its RPATH must find the
# installed libtutti.so); check that libtutti.so exports the public API and
# nothing else; build a tiny program against the installed copy twice, with
# pkg-config and with find_package.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n1); libdir=${libdir%/pkgconfig}
test -x "$tmp/prefix/bin/tutti" || fail "no bin/tutti"
test -f "$tmp/prefix/include/tutti/tutti.h" || fail "no include/tutti/tutti.h"

# The installed command starts, and loads the installed library (not the
# build tree's, which its build-tree RUNPATH named).
tutti=$tmp/prefix/bin/tutti
loaded=$(env -u LD_LIBRARY_PATH ldd "$tutti" | awk '/libtutti/ {print $3}')
loaded=$(realpath -- "${loaded:-/nonexistent}" 2>/dev/null) || true
[[ $loaded == "$(realpath -- "$libdir")"/libtutti.so.* ]] || fail "bin/tutti loads libtutti from '$loaded', not $libdir"
out=$(env -u LD_LIBRARY_PATH "$tutti" list) || fail "tutti list failed: $out"
grep -q '^bcast -- ' <<<"$out" || fail "tutti list printed no bcast: $out"
out=$(env -u LD_LIBRARY_PATH "$tutti" run bcast binomial -n 4) || fail "tutti run failed: $out"
grep -Eq '^algorithm +binomial' <<<"$out" || fail "tutti run: no algorithm line: $out"
grep -Eq '^ranks +4$' <<<"$out" || fail "tutti run: no ranks line: $out"
grep -Eq '^verified +yes$' <<<"$out" || fail "tutti run: not verified: $out"

# Only the public API is exported: every symbol libtutti.so defines is named
# in the installed headers, and none is an internal tutti__ name.
lib=$(ls "$libdir"/libtutti.so.*.*.*)
nsyms=0 stray=()
while read -r sym; do
  nsyms=$((nsyms + 1))
  grep -qw -- "$sym" "$tmp"/prefix/include/tutti/*.h || stray+=("$sym")
done < <(nm -D --defined-only "$lib" | awk '{print $3}')
((nsyms > 100)) || fail "libtutti.so exports only $nsyms symbols"
internal=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^tutti__') || true
((internal == 0)) || fail "libtutti.so exports $internal internal tutti__ symbols"
((${#stray[@]} == 0)) || fail "libtutti.so exports ${#stray[@]} symbols no public header declares: ${stray[*]}"

export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=gnu11 -o "$tmp/hello-pc" "$src/hello.c" $(pkg-config --cflags --libs tutti)
LD_LIBRARY_PATH=$libdir "$tmp/hello-pc"
cmake -S "$src" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/b" >/dev/null
LD_LIBRARY_PATH=$libdir "$tmp/b/hello"
echo "install test: installed tutti ran (list, run); $nsyms exported symbols, all public;" \
  "pkg-config and find_package builds both ran"
