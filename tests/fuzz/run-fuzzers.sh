#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time with seeds made by make_seeds and from
# ../shared/fixtures and tests/corpus.
# usage: tests/fuzz/run-fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET (default 60)] [OUT_DIR]
# BUILD_DIR was configured with CC=clang CXX=clang++ -DQUANTSCOPE_FUZZ=ON. QS_FUZZ_JOBS=2 runs two
# targets at a time; QS_FUZZ_RUNS=N stops each target after N executions instead (SECONDS is then
# only a bound). Crashing inputs land in OUT_DIR/<target>/findings/ (replay one:
# BUILD_DIR/tests/fuzz/<target> FILE); copy each into tests/corpus/<target>/ once fixed (or, a
# file or folder a user could open, into tests/corpus/ as it is: make_seeds packs it for every
# target, and replay-corpus.sh replays it through each). Exit status 1 when any target found
# something.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: run-fuzzers.sh BUILD_DIR [SECONDS] [OUT_DIR]}" && pwd)"
seconds="${2:-60}"
out="${3:-$(mktemp -d /tmp/qsfuzz-run-XXXXXX)}"
jobs="${QS_FUZZ_JOBS:-1}"
fixtures="${QS_SHARED_DIR:-$here/../../../shared}/fixtures"
[ -d "$fixtures" ] || { echo "no fixtures at $fixtures (set QS_SHARED_DIR)" >&2; exit 2; }
# QS_FUZZ_TARGETS="fuzz_stats fuzz_diff" runs only those, in that order.
read -r -a targets <<< "${QS_FUZZ_TARGETS:-fuzz_gguf fuzz_safetensors fuzz_json fuzz_detect_dequant fuzz_imatrix fuzz_stats fuzz_diff fuzz_verify fuzz_pytorch}"

seeds="$out/seeds"
for target in "${targets[@]}"; do mkdir -p "$seeds/$target"; done
# Small generated files (every GGUF value type, every quantize target's output, the fixture
# folders, the folder rules) and the regression corpus (inputs that once failed), each entry
# into every target that reads its kind.
"$build/tests/fuzz/make_seeds" "$fixtures" "$seeds" "$here/../corpus" > /dev/null
i=0
for model in "$fixtures"/safetensors/*/model.safetensors "$fixtures/safetensors/sources.safetensors"; do
  i=$((i + 1))
  name="$(basename "$(dirname "$model")")"
  { printf '\000'; cat "$model"; } > "$seeds/fuzz_safetensors/file-$i"
  # The JSON header: 8-byte little-endian length, then that many bytes.
  len=$(od -An -t u8 -N 8 "$model" | tr -d ' ')
  head -c "$((len + 8))" "$model" | tail -c +9 > "$seeds/fuzz_json/header-$i"
  case "$name" in
    gptq-*) pick='\001' ;; awq-*) pick='\002' ;; bnb-*) pick='\003' ;; ct-*) pick='\004' ;; *) pick='\000' ;;
  esac
  { printf "$pick"; cat "$model"; } > "$seeds/fuzz_detect_dequant/model-$i"
done
{ printf '\001'
  printf '{"metadata":{"total_size":32},"weight_map":{"model.layers.0.mlp.up_proj.weight":"model-00001-of-00002.safetensors","model.layers.0.mlp.down_proj.weight":"model-00002-of-00002.safetensors"}}'
} > "$seeds/fuzz_safetensors/index"

run_target() {
  local target=$1 exe="$build/tests/fuzz/$1"
  mkdir -p "$out/$target/corpus" "$out/$target/findings"
  # -rss_limit_mb and -malloc_limit_mb turn unbounded allocation into a finding;
  # -timeout turns a hang into one. A target stops at its first finding.
  local runs=()
  [ -n "${QS_FUZZ_RUNS:-}" ] && runs=(-runs="$QS_FUZZ_RUNS")
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    OMP_NUM_THREADS=1 nice -n 10 "$exe" "$out/$target/corpus" "$seeds/$target" "${runs[@]}" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=1048576 \
      -artifact_prefix="$out/$target/findings/" -print_final_stats=1 > "$out/$target/log.txt" 2>&1 || true
}

for target in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/$target" ] || { echo "missing $build/tests/fuzz/$target (build it first)" >&2; exit 2; }
done
running=0
for target in "${targets[@]}"; do
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
printf '%-22s %12s %10s %8s %8s %10s %s\n' target executions "exec/s" cov features findings "corpus dir"
for target in "${targets[@]}"; do
  log="$out/$target/log.txt"
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  # The last status line: "#N ... cov: C ft: F corp: ..." (edges and features covered).
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  # slow-unit-* files are not findings: on a loaded machine any unit can stall.
  findings=$(find "$out/$target/findings" -type f \( -name "crash-*" -o -name "leak-*" -o -name "timeout-*" -o -name "oom-*" \) | wc -l)
  printf '%-22s %12s %10s %8s %8s %10s %s\n' "$target" "${execs:-?}" "${rate:-?}" "$(echo "$cov" | awk '{print $2}')" \
    "$(echo "$cov" | awk '{print $4}')" "$findings" "$out/$target"
  [ "$findings" -eq 0 ] || { status=1; tail -40 "$log" >&2; }
done
exit $status
