#!/usr/bin/env bash
# Fuzz the parsers for longer than CI does: build the libFuzzer targets of
# tests/fuzz/ (clang, ASan+UBSan) in build-fuzz/ if needed, then run each
# for SECONDS (default 600) on top of what earlier runs found (the work
# corpus in build-fuzz/tests/fuzz/work/ is kept). tests/fuzz/README.md
# says how to reproduce and minimize what it finds.
#
#   bench/fuzz.sh [SECONDS] [TARGET...]      e.g. bench/fuzz.sh 3600 fuzz_topo_ini
#
# Environment: FUZZ_BUILD (the build directory, default build-fuzz), and
# TUTTI_FUZZ_UNCAPPED=1 to let the topology targets build trees of any
# size (tests/fuzz/fuzz_topo.h).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
build=${FUZZ_BUILD:-build-fuzz}
if [[ ! -f $build/CMakeCache.txt ]]; then
  CC=clang cmake -S . -B "$build" -DTUTTI_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target fuzz -j "$(nproc)"
exec tests/fuzz/run.sh --seconds "$seconds" "$build" "$@"
