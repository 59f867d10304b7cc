#!/usr/bin/env bash
# Checks the objects compiled for a SIMD tier (*_avx2.cpp.o, *_avx512.cpp.o, *_neon.cpp.o) for code
# that could run before the dispatcher chose their path (base/simd.h):
# - a static initializer (an .init_array / .ctors entry, GCC's _GLOBAL__sub_I_*): it runs when the
#   program loads, on every CPU, so a namespace-scope vector built with _mm512_set* is an illegal
#   instruction on a CPU without AVX-512. Constants are constexpr, or built inside the kernel.
# - a weak (inline or template) function with VEX or EVEX code: the linker keeps one copy of a weak
#   symbol for the whole program; were it the SIMD object's, a caller on the scalar path would run
#   AVX code on a CPU without it. Such helpers belong in an anonymous namespace or out of line.
# Usage: simd_objects.sh OBJECT... (objects of other files are skipped)
set -euo pipefail
if [ $# -eq 1 ] && [[ "$1" == *";"* ]]; then
  echo "one argument holds a CMake list: add_test needs COMMAND_EXPAND_LISTS" >&2
  exit 1
fi
tab=$'\t'
vex="^ +[0-9a-f]+:${tab}(v[a-z0-9]+|k(mov|and|or|xor|not|shift|unpck|test|add)[a-z]*|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)( |\$)"
checked=0
bad=0
for obj in "$@"; do
  case "$obj" in
    *_avx2.cpp.o | *_avx512.cpp.o | *_neon.cpp.o) ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  # Sections that run code at load: the initializer arrays (and the old .ctors). (grep -c reads to
  # the end: with -q, the reader's SIGPIPE would fail the pipeline and hide the match.)
  if readelf -SW "$obj" | grep -cE ' \.(init_array|preinit_array|ctors) ' > /dev/null; then
    inits=$(nm --defined-only "$obj" | awk '$3 ~ /^_GLOBAL__sub_I_/ {print $3}' | tr '\n' ' ')
    echo "$(basename "$obj"): static initializer runs at load, before dispatch ${inits:+($inits)}"
    bad=$((bad + 1))
  fi
  # Weak code symbols: W (weak) and V in the text section; mangled, for objdump. NEON is in every
  # arm64 CPU, so only the x86 tiers can leak an instruction the CPU lacks this way.
  case "$obj" in *_neon.cpp.o) continue ;; esac
  while read -r _ kind sym; do
    [ "$kind" = W ] || [ "$kind" = V ] || continue
    # VEX/EVEX-encoded instructions: v-mnemonics, mask-register and BMI1/2 ones.
    if objdump -d --no-show-raw-insn "--disassemble=$sym" "$obj" | grep -cE "$vex" > /dev/null; then
      echo "$(basename "$obj"): weak symbol with VEX code: $(echo "$sym" | c++filt)"
      bad=$((bad + 1))
    fi
  done < <(nm --defined-only "$obj")
done
if [ "$checked" -eq 0 ]; then
  echo "no SIMD tier object files given" >&2
  exit 1
fi
echo "$checked SIMD object files checked, $bad problems"
[ "$bad" -eq 0 ]
