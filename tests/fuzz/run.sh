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
# 20 s a target on a 2-core machine (CI's fuzz step: about 3 minutes). With --seconds the work corpus
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
  [fuzz_units]=3000000
  [fuzz_model]=2800000
  [fuzz_profile]=1300000
  [fuzz_topo_ini]=800000
  [fuzz_topo_spec]=200000
  [fuzz_mapping]=4000000
  [fuzz_params]=300000
  [fuzz_machine]=700000
  [fuzz_rules]=700000
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

failed=()
for t in "${targets[@]}"; do
  [[ -n ${RUNS[$t]:-} ]] || { echo "run.sh: no target '$t'; known: ${!RUNS[*]}" >&2; exit 2; }
  [[ -x $bin/$t ]] || { echo "run.sh: $bin/$t is not built (cmake --build $build --target fuzz)" >&2; exit 2; }
  mkdir -p "$bin/work/$t" "$bin/artifacts"
  # The seeds as one sorted list: libFuzzer sorts them by size only, so
  # their order among equal sizes must not depend on the file system's.
  find $(seeds "$t") -type f | LC_ALL=C sort | paste -sd, - >"$bin/work/$t.seeds"
  cp "$here/tutti.dict" "$bin/work/tutti.dict"
  # Paths relative to $bin and a fixed environment: what is on the target's
  # stack is then the same in every checkout (see above); only the cap
  # switch (fuzz_topo.h) passes through.
  opts=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -reload=0
    -dict=work/tutti.dict -seed_inputs=@work/$t.seeds -artifact_prefix=artifacts/$t-)
  if [[ -n $seconds ]]; then
    opts+=(-max_total_time="$seconds")
  else
    rm -rf "$bin/work/$t" && mkdir "$bin/work/$t"
    opts+=(-seed=1 -runs="${RUNS[$t]}")
  fi
  echo "== $t: ${opts[*]: -1}"
  start=$SECONDS
  if (cd "$bin" && env -i PATH=/usr/bin:/bin ${TUTTI_FUZZ_UNCAPPED:+TUTTI_FUZZ_UNCAPPED=1} "./$t" "${opts[@]}" "work/$t") >"$bin/work/$t.log" 2>&1; then
    echo "   $(grep -E '^(#[0-9]+\s+DONE|Done )' "$bin/work/$t.log" | tr '\n' ' ')($((SECONDS - start)) s)"
  else
    echo "   FAILED after $((SECONDS - start)) s; the input is in $bin/artifacts/, the log:"
    grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$bin/work/$t.log" | head -20 | sed 's/^/   /'
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} (logs in $bin/work/)"
  exit 1
fi
echo "fuzz: all ${#targets[@]} target(s) passed"
