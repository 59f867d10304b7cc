#!/usr/bin/env bash
# Fails when an AVX2 / AVX-512 object file defines a weak (inline or template) function with a VEX
# or EVEX instruction. The linker keeps one copy of a weak symbol for the whole program; were it
# the SIMD object's, a caller on the scalar path would run AVX code on a CPU without it. Such
# helpers belong in an anonymous namespace (their own copy per object) or out of line.
# Usage: simd_weak_symbols.sh OBJECT... (the other objects given are skipped)
set -euo pipefail
tab=$'\t'
vex="^ +[0-9a-f]+:${tab}(v[a-z0-9]+|k(mov|and|or|xor|not|shift|unpck|test|add)[a-z]*|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)( |\$)"
checked=0
bad=0
for obj in "$@"; do
  case "$obj" in
    *_avx2.cpp.o | *_avx512.cpp.o) ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  # Weak code symbols: W (weak) and V in the text section; mangled, for objdump.
  while read -r _ kind sym; do
    [ "$kind" = W ] || [ "$kind" = V ] || continue
    # VEX/EVEX-encoded instructions: v-mnemonics, mask-register and BMI1/2 ones.
    # (grep -c reads to the end: with -q, objdump's SIGPIPE would fail the pipeline.)
    if objdump -d --no-show-raw-insn "--disassemble=$sym" "$obj" | grep -cE "$vex" > /dev/null; then
      echo "$(basename "$obj"): weak symbol with VEX code: $(echo "$sym" | c++filt)"
      bad=$((bad + 1))
    fi
  done < <(nm --defined-only "$obj")
done
if [ "$checked" -eq 0 ]; then
  echo "no AVX2 or AVX-512 object files given" >&2
  exit 1
fi
echo "$checked SIMD object files checked, $bad weak symbols with VEX code"
[ "$bad" -eq 0 ]
