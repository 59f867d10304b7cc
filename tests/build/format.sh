#!/usr/bin/env bash
# Every C++ file is as .clang-format lays it out. Layouts differ between clang-format releases,
# so the check runs with Debian 12's (14, installed by .ci/install-deps) and is skipped, saying so,
# with another; it must find files, so a check gone blind fails.
# Usage: format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
if ! command -v clang-format > /dev/null; then
  echo "clang-format is not installed: bash .ci/install-deps installs it" >&2
  exit 1
fi
version=$(clang-format --version | sed -nE 's/.*version ([0-9]+)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "SKIPPED: clang-format $version lays code out differently from 14 (Debian 12's), which .clang-format was applied with"
  exit 77
fi
mapfile -t files < <(find app core widgets tests -name '*.cpp' -o -name '*.h' | sort)
if [ "${#files[@]}" -lt 100 ]; then
  echo "only ${#files[@]} C++ files found under app, core, widgets and tests" >&2
  exit 1
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2> /tmp/format-check.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/format-check.$$ | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  rm -f /tmp/format-check.$$
  echo "run: clang-format -i FILE (or: git ls-files '*.cpp' '*.h' | xargs clang-format -i)"
  exit 1
fi
rm -f /tmp/format-check.$$
echo "${#files[@]} files formatted as .clang-format says"
