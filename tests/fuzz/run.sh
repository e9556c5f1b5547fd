#!/usr/bin/env bash
# Run the libFuzzer targets of a fuzz build (-DTUTTI_FUZZ=ON; README.md
# here) over their seed corpora.
#
#   tests/fuzz/run.sh BUILD [TARGET...]             a fixed number of runs each (CI)
#   tests/fuzz/run.sh --seconds S BUILD [TARGET...] S seconds each (bench/fuzz.sh)
#
# With a number of runs (the CI's way) a run is deterministic: the same
# seed (-seed=1), a fresh work corpus, the seeds in a fixed order, relative
# paths and a fixed environment (the fuzzer mutates with values it saw
# compared, so even the stack's layout could steer it), so it passes or
# fails the same way on every machine; RUNS below is tuned to about
# 10 s a target on one core (at least 100000 inputs each, but for
# fuzz_api, whose inputs each cost whole cost functions, and fuzz_cli_opts;
# the longer searches are bench/fuzz.sh's). Each target is one process on
# one core: they run $TUTTI_FUZZ_JOBS at a time (default: the CPU count),
# each alone deterministic, so a 2-core machine (CI) runs the 11 in about
# a minute.
# With --seconds the work corpus
# under BUILD/tests/fuzz/work/ is kept from one run to the next. A crash,
# leak, out-of-memory or timeout stops the target: its input is written to
# BUILD/tests/fuzz/artifacts/ and this script exits 1 after the others ran.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/../data" && pwd)
seconds=
if [[ ${1:-} == --seconds ]]; then
  seconds=$2
  shift 2
fi
build=${1:?usage: run.sh [--seconds S] BUILD [TARGET...]}
shift
bin=$build/tests/fuzz

# target -> runs for CI, then its seed directories
declare -A RUNS=(
  [fuzz_units]=1500000
  [fuzz_model]=1400000
  [fuzz_profile]=650000
  [fuzz_topo_ini]=400000
  [fuzz_topo_spec]=100000
  [fuzz_mapping]=2000000
  [fuzz_params]=150000
  [fuzz_machine]=350000
  [fuzz_rules]=350000
  [fuzz_cli_opts]=30000
  [fuzz_api]=2000
)
seeds() {
  local name=${1#fuzz_}
  echo "$here/corpus/$name"
  case $name in
  profile) echo "$data/profiles" ;;
  topo_ini) echo "$data/topo" ;;
  esac
}

targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(printf '%s\n' "${!RUNS[@]}" | LC_ALL=C sort)
fi

for t in "${targets[@]}"; do
  [[ -n ${RUNS[$t]:-} ]] || { echo "run.sh: no target '$t'; known: ${!RUNS[*]}" >&2; exit 2; }
  [[ -x $bin/$t ]] || { echo "run.sh: $bin/$t is not built (cmake --build $build --target fuzz)" >&2; exit 2; }
done
mkdir -p "$bin/work" "$bin/artifacts"
cp "$here/tutti.dict" "$bin/work/tutti.dict"

# One target: its log in work/T.log, what to print in work/T.result, and
# work/T.passed when it found nothing.
fuzz_one() {
  local t=$1
  rm -f "$bin/work/$t.passed"
  mkdir -p "$bin/work/$t"
  # The seeds as one sorted list: libFuzzer sorts them by size only, so
  # their order among equal sizes must not depend on the file system's.
  find $(seeds "$t") -type f | LC_ALL=C sort | paste -sd, - >"$bin/work/$t.seeds"
  # Paths relative to $bin and a fixed environment: what is on the target's
  # stack is then the same in every checkout (see above); only the cap
  # switch (fuzz_topo.h) passes through.
  local opts=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -reload=0
    -dict=work/tutti.dict -seed_inputs=@work/$t.seeds -artifact_prefix=artifacts/$t-)
  if [[ -n $seconds ]]; then
    opts+=(-max_total_time="$seconds")
  else
    rm -rf "$bin/work/$t" && mkdir "$bin/work/$t"
    opts+=(-seed=1 -runs="${RUNS[$t]}")
  fi
  local start=$SECONDS
  {
    echo "== $t: ${opts[*]: -1}"
    if (cd "$bin" && env -i PATH=/usr/bin:/bin ${TUTTI_FUZZ_UNCAPPED:+TUTTI_FUZZ_UNCAPPED=1} "./$t" "${opts[@]}" "work/$t") >"$bin/work/$t.log" 2>&1; then
      echo "   $(grep -E '^(#[0-9]+\s+DONE|Done )' "$bin/work/$t.log" | tr '\n' ' ')($((SECONDS - start)) s)"
      touch "$bin/work/$t.passed"
    else
      echo "   FAILED after $((SECONDS - start)) s; the input is in $bin/artifacts/, the log:"
      grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$bin/work/$t.log" | head -20 | sed 's/^/   /' || true
    fi
  } >"$bin/work/$t.result"
}

jobs=${TUTTI_FUZZ_JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait
# The results in the targets' order, whatever order they finished in.
failed=()
for t in "${targets[@]}"; do
  cat "$bin/work/$t.result"
  [[ -e $bin/work/$t.passed ]] || failed+=("$t")
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} (logs in $bin/work/)"
  exit 1
fi
echo "fuzz: all ${#targets[@]} target(s) passed"
