#!/usr/bin/env bash
# Replays the regression corpus (tests/corpus) through every libFuzzer target once: make_seeds
# packs each entry for every target that reads its kind (a folder or a file as a packed folder
# for fuzz_safetensors, fuzz_detect_dequant, fuzz_stats, fuzz_diff and fuzz_verify; a .gguf as it
# is for fuzz_gguf and fuzz_imatrix; JSON and safetensors headers for fuzz_json), then each
# target runs each of its inputs once under the limits run-fuzzers.sh fuzzes with. Fails on any
# finding, and when a target got no input or ran fewer inputs than it was given (a replay that
# ran nothing is not a pass).
# usage: tests/fuzz/replay-corpus.sh FUZZ_BIN_DIR CORPUS_DIR
set -euo pipefail
bin="${1:?usage: replay-corpus.sh FUZZ_BIN_DIR CORPUS_DIR}"
corpus="${2:?usage: replay-corpus.sh FUZZ_BIN_DIR CORPUS_DIR}"
out="$(mktemp -d /tmp/qsfuzz-replay-XXXXXX)"
trap 'rm -rf "$out"' EXIT
"$bin/make_seeds" --corpus "$corpus" "$out/seeds"
status=0
for exe in "$bin"/fuzz_*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  target="$(basename "$exe")"
  inputs=("$out/seeds/$target"/*)
  if [ ! -e "${inputs[0]}" ]; then
    echo "$target: no corpus input" >&2
    status=1
    continue
  fi
  log="$out/$target.log"
  if ! ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:allocator_may_return_null=1" OMP_NUM_THREADS=1 \
       "$exe" -timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=1024 "${inputs[@]}" > "$log" 2>&1; then
    echo "$target: finding while replaying the corpus:" >&2
    tail -40 "$log" >&2
    status=1
    continue
  fi
  ran=$(grep -c '^Executed ' "$log" || true)
  echo "$target: ${#inputs[@]} inputs, $ran executed"
  [ "$ran" -eq "${#inputs[@]}" ] || { echo "$target: ran $ran of ${#inputs[@]} inputs" >&2; status=1; }
done
exit $status
