#!/usr/bin/env bash
# The layering ARCHITECTURE.md draws, checked on the sources:
# - outside core/formats/ no file includes a family folder's header (core/formats/<family>/) or
#   names `FormatFamily::` or `RequantizeRule::`: generic code reaches a family through its row in
#   the family table (a format's round trip: hasRequantizer, requantizerTakesShape);
# - no include runs upward: base < remote < container < formats < analysis < report (core/) < widgets < app,
#   each folder including only those before it (so core includes nothing of widgets or app).
# Each include is resolved as the compiler does (the including file's folder, then core/, then
# widgets/; a core file cannot reach widgets/ when built, the check names it all the same). The check must still see: it fails when it no longer finds the
# family folders' own includes of their headers, `FormatFamily::` in core/formats/family.h, or
# the downward includes every layer makes.
# A violation not yet cleared is listed in `allowed` below: printed on every run, and the check
# fails when a listed one is gone, so the list only shrinks.
# Usage: layering.sh SOURCE_DIR
set -euo pipefail
cd "$1"

layers=(core/base core/remote core/container core/formats core/analysis core/report widgets app)
layer_of() { # sets `layer` to the index in `layers` of a path, or -1
  local i
  layer=-1
  for i in "${!layers[@]}"; do
    case "$1" in "${layers[$i]}"/*)
      layer=$i
      return
      ;;
    esac
  done
}
families=$(find core/formats -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
is_family_header() {
  local f
  for f in $families; do
    case "$1" in core/formats/"$f"/*) return 0 ;; esac
  done
  return 1
}

# Still to clear: none (the list only shrinks; add nothing to it).
allowed=()

failures=()
seen_family=0 seen_down=0
declare -A seen_layer_down=()
while IFS= read -r file; do
  layer_of "$file"
  from=$layer
  dir=${file%/*}
  while IFS= read -r inc; do
    target=""
    for candidate in "$dir/$inc" "core/$inc" "widgets/$inc"; do
      if [ -f "$candidate" ]; then
        target=${candidate#./}
        break
      fi
    done
    [ -n "$target" ] || continue
    layer_of "$target"
    to=$layer
    if is_family_header "$target"; then
      case "$file" in
        core/formats/*) seen_family=1 ;;
        *) failures+=("$file includes the family header $target") ;;
      esac
    fi
    if [ "$to" -gt "$from" ]; then
      failures+=("$file (${layers[$from]}) includes $target (${layers[$to]}) upward")
    elif [ "$to" -ge 0 ] && [ "$to" -lt "$from" ]; then
      seen_down=$((seen_down + 1))
      seen_layer_down[$from]=1
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$file")
done < <(find core widgets app -name '*.cpp' -o -name '*.h' | sort)

for name in FormatFamily RequantizeRule; do
  family_refs=$(grep -rn --include='*.cpp' --include='*.h' "$name::" core widgets app | grep -v '^core/formats/' || true)
  if [ -n "$family_refs" ]; then
    while IFS= read -r line; do failures+=("$name:: outside core/formats: $line"); done <<< "$family_refs"
  fi
done

blind=()
[ "$seen_family" = 1 ] || blind+=("no include of a family header found even inside core/formats")
grep -q 'FormatFamily::' core/formats/family.h || blind+=("the pattern no longer finds FormatFamily:: in core/formats/family.h")
grep -q 'RequantizeRule::' core/formats/formatid.h || blind+=("the pattern no longer finds RequantizeRule:: in core/formats/formatid.h")
for i in 1 2 3 4 5 6 7; do
  [ -n "${seen_layer_down[$i]:-}" ] || blind+=("no include from ${layers[$i]} into an earlier layer resolved")
done
if [ ${#blind[@]} -gt 0 ]; then
  printf 'the check went blind: %s\n' "${blind[@]}" >&2
  exit 1
fi
remaining=()
for f in "${failures[@]}"; do
  listed=0
  for a in "${allowed[@]}"; do [ "$f" = "$a" ] && listed=1; done
  if [ "$listed" = 1 ]; then echo "allowed, still to clear: $f"; else remaining+=("$f"); fi
done
for a in "${allowed[@]}"; do
  found=0
  for f in "${failures[@]}"; do [ "$f" = "$a" ] && found=1; done
  [ "$found" = 1 ] || remaining+=("cleared, remove it from the allow-list: $a")
done
if [ ${#remaining[@]} -gt 0 ]; then
  printf '%s\n' "${remaining[@]}"
  echo "${#remaining[@]} layering violations"
  exit 1
fi
echo "layering holds: $seen_down downward includes resolved, no family header, FormatFamily:: or RequantizeRule:: outside core/formats (${#allowed[@]} allowed)"
