#!/usr/bin/env bash
# soak.sh -- the long runs behind tests/README.md "What the tests guarantee" that are too slow
# for the test suite (tests/test_e2e_soak.c runs them scaled down):
#   1. native: 10^6 consecutive small collectives (allreduce, 8 bytes, 4
#      ranks) in one world: peak resident memory against 10^4 and 10^5 calls;
#   2. modeled: 10^5 and 10^6 calls of a logged run: peak memory per call
#      (runtime/MODEL.md "Memory" has it per event);
#   3. a bound: a run that would record more than --max-events is exit 3,
#      one line;
#   4. determinism at scale: a 16384-rank modeled bcast and barrier, three
#      times under TUTTI_PERTURB with different seeds and once without:
#      the JSON reports identical but for wall_time;
#   5. a timing-only run at scale: a 16384-rank binomial reduce of 1 GiB a
#      rank with --no-data runs, in the Hockney time ceil(log2 P)(alpha +
#      beta m) of the default profile; its peak memory and seconds.
# Usage: bench/soak.sh [BUILD_DIR]  (default build; needs GNU time at /usr/bin/time)
set -euo pipefail
build=${1:-build}
tutti=$build/tutti
[ -x "$tutti" ] || { echo "soak.sh: no $tutti; build first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# peak KiB and wall seconds of a command
peak() { /usr/bin/time -f '%M %e' -o "$tmp/t" "$@" >/dev/null; cat "$tmp/t"; }

echo "== native: allreduce 8 B on 4 ranks, K calls in one world (peak KiB, seconds)"
for k in 10000 100000 1000000; do
  echo "  $k calls: $(peak "$tutti" run allreduce reduce-bcast -n 4 -m 8 --model none --iters $k)"
done

echo "== modeled (hockney): K calls logged and replayed, peak KiB (the difference: bytes a call)"
prev=
for k in 100000 1000000; do
  read -r kib secs < <(peak "$tutti" run allreduce reduce-bcast -n 4 -m 8 \
    --model hockney:alpha=1us,beta=1ns --iters $k)
  echo "  $k calls: peak $kib KiB in $secs s"
  [ -n "$prev" ] && echo "  $(( (kib - prev) * 1024 / (k - 100000) )) bytes a call (all 4 ranks' events, logs and replay)"
  prev=$kib
done

echo "== --max-events: exit status and message"
set +e
"$tutti" run allreduce reduce-bcast -n 4 --iters 1000000 --max-events 100000 2>"$tmp/e" >/dev/null
echo "  exit $?: $(cat "$tmp/e")"
set -e

echo "== 16384 ranks under TUTTI_PERTURB (loggp): identical JSON but wall_time"
for coll in "bcast binomial -m 8" "barrier lambda-tree"; do
  for s in 0 1 2 3; do
    TUTTI_PERTURB=$s "$tutti" run $coll -n 16384 --model loggp:L=5us,o=1us,g=2us,G=1ns --json |
      sed 's/"wall_time":[^,}]*//' >"$tmp/run$s"
  done
  if cmp -s "$tmp/run0" "$tmp/run1" && cmp -s "$tmp/run0" "$tmp/run2" && cmp -s "$tmp/run0" "$tmp/run3"; then
    echo "  $coll: identical ($(grep -o '"modeled_time":[^,]*' "$tmp/run0" | head -1))"
  else
    echo "  $coll: DIFFERENT"
    exit 1
  fi
done

echo "== --no-data at scale: reduce binomial, 16384 ranks, 1 GiB a rank (peak KiB, seconds)"
read -r kib secs < <(peak "$tutti" run reduce binomial -n 16384 -m 1GiB --no-data)
"$tutti" run reduce binomial -n 16384 -m 1GiB --no-data --json >"$tmp/big"
got=$(grep -o '"modeled_time":[^,]*' "$tmp/big" | cut -d: -f2)
# teaching-hockney: alpha 1 us, beta 1 ns/B; ceil(log2 16384) = 14 rounds
want=$(awk 'BEGIN { printf "%.9f", 14 * (1e-6 + 1e-9 * 1073741824) }')
if awk -v g="$got" -v w="$want" 'BEGIN { exit !(g - w < 1e-9 && w - g < 1e-9) }'; then
  echo "  peak $kib KiB in $secs s; modeled $got s = 14 (alpha + beta m)"
else
  echo "  modeled $got s, want $want s"
  exit 1
fi
