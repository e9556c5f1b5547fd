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
grep -Eq '^ranks +4(, as fibers)?$' <<<"$out" || fail "tutti run: no ranks line: $out"
grep -Eq '^verified +yes$' <<<"$out" || fail "tutti run: not verified: $out"

# The SONAME is the ABI's number (CMakeLists.txt TUTTI_SOVERSION), not the
# version's major.
soname=$(objdump -p "$(ls "$libdir"/libtutti.so.*.*.*)" | awk '/SONAME/ {print $2}')
[[ $soname == libtutti.so.2 ]] || fail "libtutti's SONAME is '$soname', not libtutti.so.2"

# A user's one-file algorithm compiles against the installed headers (found
# beside the installed library), runs and checks, with the cache in $tmp.
export TUTTI_CACHE_DIR=$tmp/cache
(cd "$tmp" && env -u LD_LIBRARY_PATH "$tutti" new bcast mine >/dev/null) || fail "tutti new failed"
out=$(cd "$tmp" && env -u LD_LIBRARY_PATH "$tutti" run bcast ./mine.c -n 5 -m 100) ||
  fail "tutti run ./mine.c failed: $out"
grep -Eq '^algorithm +mine:k=3$' <<<"$out" || fail "tutti run ./mine.c: no algorithm line: $out"
grep -Eq '^verified +yes$' <<<"$out" || fail "tutti run ./mine.c: not verified: $out"
(cd "$tmp" && env -u LD_LIBRARY_PATH "$tutti" check bcast ./mine.c --ranks 1,2,5 >/dev/null) ||
  fail "tutti check ./mine.c failed"

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
echo "install test: installed tutti ran (list, run, a one-file plugin); SONAME $soname;" \
  "$nsyms exported symbols, all public; pkg-config and find_package builds both ran"
