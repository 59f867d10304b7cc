#!/usr/bin/env bash
# Every parallel region goes through core/base/parallel.h (runChunks, parallelFor): a raw OpenMP
# region elsewhere cannot carry an exception out (one thrown inside it ends the program) and cannot
# stop early. The pattern must still find parallel.h's own region, so a check gone blind fails.
# Usage: openmp_regions.sh SOURCE_DIR
set -euo pipefail
cd "$1"
pattern='^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp[[:space:]]+parallel'
if ! grep -cE "$pattern" core/base/parallel.h > /dev/null; then
  echo "the pattern no longer finds core/base/parallel.h's own region" >&2
  exit 1
fi
raw=$(grep -rnE --include='*.cpp' --include='*.h' "$pattern" core widgets app | grep -v '^core/base/parallel.h:' || true)
if [ -n "$raw" ]; then
  echo "OpenMP regions outside core/base/parallel.h:"
  echo "$raw"
  exit 1
fi
echo "no OpenMP region outside core/base/parallel.h"
