#!/usr/bin/env bash
# Runs the CLI's writing commands on a handful of fixture checkpoints and records, under OUT, one
# file per run: what it printed (stdout, stderr and the exit code) and the mode, size and md5 of
# every file it wrote. `quantize` goes to every quantize target and `repack` to every repack target
# (the lists are read from the CLI's --help), from GGUF and safetensors float sources (F32, F16,
# BF16; weights whose K is not whole blocks; names GGUF cannot keep) and from quantized ones
# (GPTQ with and without act-order, AWQ, compressed-tensors, bnb, GGUF block types), plus the
# options that change the written file. A restructure of the writers that must not change
# behaviour is checked by running this before and after it and comparing the two folders
# (`diff -r`). Usage: golden_writes.sh CLI FIXTURES_DIR OUT
set -uo pipefail
cli=$1
fixtures=$(realpath "$2")
out=$3
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 QUANTSCOPE_SIMD=scalar XDG_RUNTIME_DIR=$work
n=0
# run NAME OUTPUT COMMAND...: OUTPUT is the file or folder the command writes (under $work).
run() {
  local name=$1 dst=$2
  shift 2
  "$cli" "$@" > "$out/$name.out" 2> "$out/$name.err"
  echo "exit $?" >> "$out/$name.out"
  { # everything under the output, hidden files (a temporary left behind) included
    if [ -d "$dst" ]; then
      (cd "$dst" && find . -type f -printf '%P\n' | LC_ALL=C sort | while read -r f; do
        printf '%s %s %s %s\n' "$(stat -c %a "$f")" "$(stat -c %s "$f")" "$(md5sum < "$f" | cut -c1-32)" "$f"
      done)
    elif [ -f "$dst" ]; then
      printf '%s %s %s %s\n' "$(stat -c %a "$dst")" "$(stat -c %s "$dst")" "$(md5sum < "$dst" | cut -c1-32)" \
        "$(basename "$dst")"
    else
      echo "nothing written"
    fi
    find "$(dirname "$dst")" -maxdepth 1 -name ".$(basename "$dst").tmp-*" -printf 'left behind: %f\n'
  } > "$out/$name.files"
  sed -i "s|$work|WORK|g; s|$fixtures|FIXTURES|g" "$out/$name.out" "$out/$name.err"
  n=$((n + 1))
}
# The target ids a command's --help lists after OPTION.
targets() { # targets COMMAND OPTION
  "$cli" "$1" --help | sed -n "/$2 <ID>/,/^  -[^ ]/p" | sed '$d' | sed "s/.*target://" | tr ',' '\n' |
    tr -d ' ' | grep -v '^$'
}
mapfile -t qtargets < <(targets quantize --format)
mapfile -t rtargets < <(targets repack --to)
[ ${#qtargets[@]} -gt 0 ] && [ ${#rtargets[@]} -gt 0 ] || { echo "no targets read from $cli --help" >&2; exit 1; }
ext() { case $1 in gguf-*) echo .gguf ;; *) echo "" ;; esac; }

# A loose safetensors file under GGUF names (GGUF output from a safetensors input, its architecture
# from no config, its safetensors metadata carried): sources.safetensors' first 1280 data bytes as an
# F32 [4, 64] weight and a norm.
ggufnames="$work/gguf-names.safetensors"
header='{"__metadata__":{"format":"pt"},"blk.0.ffn_up.weight":{"dtype":"F32","shape":[4,64],"data_offsets":[0,1024]},'
header+='"output_norm.weight":{"dtype":"F32","shape":[64],"data_offsets":[1024,1280]}}'
while [ $((${#header} % 8)) -ne 0 ]; do header+=' '; done
{
  printf "$(printf '\\x%02x' $((${#header} & 255)) $((${#header} >> 8)) 0 0 0 0 0 0)"
  printf '%s' "$header"
  dd if="$fixtures/safetensors/sources.safetensors" bs=1 skip=304 count=1280 status=none
} > "$ggufnames"

# quantize: float sources, --all or named weights.
declare -A qsrc=(
  [st-gguf-names]="$ggufnames --all"
  [gguf-f32]="$fixtures/real/python-gen-worker/stories260K.gguf --all"
  [gguf-f16]="$fixtures/real/generated-llama-quantize/stories260K-pure-F16.gguf --all"
  [gguf-bf16]="$fixtures/real/generated-llama-quantize/stories260K-pure-BF16.gguf --all"
  [gguf-named]="$fixtures/gguf/ggml-types.ref.gguf source.synthetic source.real_256"
  [st-k256]="$fixtures/safetensors/gptq-w4-g128-asym-actorder/ref.safetensors --all"
  [st-k100]="$fixtures/real/ollama/minicpm3-4b-model.safetensors --all"
  [st-named]="$fixtures/safetensors/sources.safetensors synthetic.W_128x256 stories260K.layers.0.wq"
)
for s in $(printf '%s\n' "${!qsrc[@]}" | sort); do
  read -r -a args <<< "${qsrc[$s]}"
  for t in "${qtargets[@]}"; do
    dst="$work/q.$s.$t$(ext "$t")"
    run "quantize.$s.$t" "$dst" quantize "${args[@]}" --format "$t" -o "$dst"
  done
done
# The options that change what quantize writes.
k256="$fixtures/safetensors/gptq-w4-g128-asym-actorder/ref.safetensors"
qopt() { # qopt NAME FORMAT OPTIONS...
  local name=$1 t=$2
  shift 2
  local dst="$work/qo.$name$(ext "$t")"
  run "quantize-opt.$name" "$dst" quantize "$k256" --all --format "$t" -o "$dst" "$@"
}
qopt gptq-w3-g32-sym gptq-v1 --bits 3 --group-size 32 --sym
qopt gptq-w8-channel-asym gptq-v2 --bits 8 --group-size -1 --asym
qopt awq-g64-clip awq-gemm --group-size 64 --clip 0.9
qopt ct-w8-asym-g32 compressed-tensors --bits 8 --asym --group-size 32
qopt ct-w2-sym compressed-tensors --bits 2 --sym
qopt mlx-w8-g32 mlx-affine --bits 8 --group-size 32
qopt mlx-w5 mlx-affine --bits 5
qopt nf4-dq-b128 bnb-nf4 --double-quant --group-size 128
qopt fp4-dq bnb-fp4 --double-quant
qopt nf4-bits8 bnb-nf4 --bits 8
qopt q4k-clip gguf-q4_k --clip 0.9
qopt alias-gptq gptq --sym
qopt alias-q8 q8_0
# An existing output: refused without --force; with it, only quantize's files are replaced.
mkdir -p "$work/qo.force" && echo keep > "$work/qo.force/README.md" && echo old > "$work/qo.force/config.json"
run "quantize-force.refused" "$work/qo.force" quantize "$k256" --all --format gptq-v1 -o "$work/qo.force"
run "quantize-force.forced" "$work/qo.force" quantize "$k256" --all --format gptq-v1 -o "$work/qo.force" --force
cp "$fixtures/gguf/ggml-types.ref.gguf" "$work/qo.existing.gguf"
run "quantize-force.gguf" "$work/qo.existing.gguf" quantize "$fixtures/gguf/ggml-types.ref.gguf" source.synthetic \
  --format gguf-q4_0 -o "$work/qo.existing.gguf" --force
run "quantize-errors.missing-weight" "$work/qo.missing" quantize "$k256" model.nope --format gptq-v1 -o "$work/qo.missing"
run "quantize-errors.not-float" "$work/qo.notfloat" quantize "$fixtures/safetensors/gptq-w4-g128-sym" \
  model.layers.0.mlp.down_proj --format gptq-v1 -o "$work/qo.notfloat"
run "quantize-errors.into-source" "$fixtures/gguf/ggml-types.ref.gguf" quantize "$fixtures/gguf/ggml-types.ref.gguf" \
  source.synthetic --format gguf-q8_0 -o "$fixtures/gguf/ggml-types.ref.gguf"

# repack: quantized sources, including ones quantize wrote above (K = 100 for GGUF's F32 fallback;
# GGUF names, which a GGUF output needs from a safetensors source).
run "quantize-for-repack.k100" "$work/k100" quantize "$fixtures/real/ollama/minicpm3-4b-model.safetensors" --all \
  --format gptq-v1 --group-size -1 -o "$work/k100"
run "quantize-for-repack.mlx" "$work/mlxsrc" quantize "$k256" --all --format mlx-affine -o "$work/mlxsrc"
rsrc=(
  safetensors/gptq-w4-g128-sym safetensors/gptq-w4-g128-asym-actorder safetensors/gptq-w4-g32-sym-actorder
  safetensors/gptq-w3-g32-asym safetensors/gptq-w8-g128-sym safetensors/gptq-w2-g32-asym
  safetensors/awq-gemm-w4-g32 safetensors/ct-pack-w4a16-channel-asym safetensors/ct-pack-w8a16-channel-sym
  safetensors/ct-pack-w4a16-g32-asym safetensors/bnb-nf4 gguf/ggml-types.gguf
  real/generated-llama-quantize/stories260K-mix-Q4_K_M.gguf WORK/k100 WORK/mlxsrc
  WORK/q.st-gguf-names.gptq-v1 WORK/q.st-gguf-names.compressed-tensors
)
for s in "${rsrc[@]}"; do
  src=${s/#WORK/$work}
  [ "$src" = "$s" ] && src="$fixtures/$s"
  key=$(echo "$s" | tr '/' '_')
  for t in "${rtargets[@]}"; do
    dst="$work/r.$key.$t$(ext "$t")"
    run "repack.$key.$t" "$dst" repack "$src" --to "$t" -o "$dst"
  done
done
# The options: --json, --no-verify, --force, aliases, and a repack of repack's own output.
act="$fixtures/safetensors/gptq-w4-g128-asym-actorder"
run "repack-opt.json" "$work/ro.json" repack "$act" --to awq-gemm -o "$work/ro.json" --json
run "repack-opt.no-verify" "$work/ro.nv.gguf" repack "$act" --to gguf-q4_1 -o "$work/ro.nv.gguf" --no-verify
run "repack-opt.no-verify-json" "$work/ro.nvj" repack "$work/k100" --to mlx-affine -o "$work/ro.nvj" --no-verify --json
run "repack-opt.alias" "$work/ro.alias.gguf" repack "$act" --to q8_0 -o "$work/ro.alias.gguf"
run "repack-opt.chain" "$work/ro.chain" repack "$work/r.safetensors_gptq-w4-g128-asym-actorder.gptq-v2" --to \
  compressed-tensors -o "$work/ro.chain"
mkdir -p "$work/ro.force" && echo keep > "$work/ro.force/notes.txt" && echo old > "$work/ro.force/model.safetensors"
run "repack-force.refused" "$work/ro.force" repack "$act" --to gptq-v1 -o "$work/ro.force"
run "repack-force.forced" "$work/ro.force" repack "$act" --to gptq-v1 -o "$work/ro.force" --force
run "repack-errors.into-source" "$act/model.safetensors" repack "$act" --to gguf-q8_0 -o "$act/model.safetensors"
run "repack-errors.bad-target" "$work/ro.bad" repack "$act" --to gguf-q4_k -o "$work/ro.bad"
echo "$n runs (${#qtargets[@]} quantize targets, ${#rtargets[@]} repack targets) written to $out"
