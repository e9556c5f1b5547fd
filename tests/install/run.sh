#!/usr/bin/env bash
# Install the build tree into a scratch prefix, then build a tiny program
# against the installed copy twice: with pkg-config and with find_package.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n1); libdir=${libdir%/pkgconfig}
test -x "$tmp/prefix/bin/tutti"
test -f "$tmp/prefix/include/tutti/tutti.h"
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=gnu11 -o "$tmp/hello-pc" "$src/hello.c" $(pkg-config --cflags --libs tutti)
LD_LIBRARY_PATH=$libdir "$tmp/hello-pc"
cmake -S "$src" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/b" >/dev/null
LD_LIBRARY_PATH=$libdir "$tmp/b/hello"
echo "install test: pkg-config and find_package builds both ran"
