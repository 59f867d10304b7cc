#!/usr/bin/env bash
# Runs the CLI's read-only commands on every fixture checkpoint and writes what each printed (stdout,
# stderr and the exit code) under OUT, one file per command and checkpoint. A restructure that
# must not change behaviour is checked by running this before and after it and comparing the two
# folders (`diff -r`): inspect, verify, stats, budget, recipe and diff against the reference where
# a fixture has one, and the Markdown report. Usage: golden_outputs.sh CLI FIXTURES_DIR OUT
set -uo pipefail
cli=$1
fixtures=$2
out=$3
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 QUANTSCOPE_SIMD=scalar XDG_RUNTIME_DIR=$work
n=0
run() { # run NAME COMMAND...
  local name=$1
  shift
  "$cli" "$@" > "$out/$name.out" 2> "$out/$name.err"
  echo "exit $?" >> "$out/$name.out"
  sed -i "s|$work|WORK|g" "$out/$name.out" "$out/$name.err" # the temporary folder differs per run
  n=$((n + 1))
}
# Checkpoints: the folders holding a model.safetensors or an index, and every .gguf / loose
# .safetensors file that is not a folder's reference.
mapfile -t paths < <(
  { find "$fixtures" -type f \( -name 'model.safetensors' -o -name '*.safetensors.index.json' \) -printf '%h\n'
    find "$fixtures" -type f \( -name '*.gguf' -o -name '*.safetensors' \) ! -name 'model*.safetensors' ! -name 'ref.safetensors'
  } | sort -u)
for path in "${paths[@]}"; do
  key=$(realpath --relative-to="$fixtures" "$path" | tr '/' '_')
  run "$key.inspect" inspect "$path"
  run "$key.inspect-json" inspect "$path" --json
  run "$key.verify" verify "$path"
  run "$key.stats" stats "$path"
  run "$key.budget" budget "$path"
  run "$key.recipe" recipe "$path"
  ref="$path/ref.safetensors"
  [ -d "$path" ] || ref="${path%.gguf}.ref.gguf"
  if [ -f "$ref" ]; then
    run "$key.stats-ref" stats "$path" --ref "$ref"
    run "$key.diff-ref" diff "$path" "$ref"
  fi
  rm -rf "$work/report" && mkdir "$work/report"
  run "$key.report" report "$path" -o "$work/report/report.md"
  [ -f "$work/report/report.md" ] && cp "$work/report/report.md" "$out/$key.report.md"
done
echo "$n runs on ${#paths[@]} checkpoints written to $out"
