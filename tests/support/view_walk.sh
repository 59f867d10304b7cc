#!/usr/bin/env bash
# A walk through every view of quantscope, as screenshots: the tensor browser and inspector
# (docks, in every shot), the Bit map in each mode (bits, bytes, matrix), Slot order, Scales,
# Error, Diff, Budget, Recipe, Verify and the Playground, on a GGUF file and a GPTQ folder, plus
# the guide's walk for a learner (on the demo), at each window size, language and theme.
#
#   tests/support/view_walk.sh QUANTSCOPE OUT GGUF GPTQ [GGUF_B [GGUF_SPLIT_WEIGHT]]
#
# QUANTSCOPE: the built app (build/app/quantscope). OUT: a folder for the PNGs (made; one
# NAME.png and NAME.log a shot). GGUF: e.g. a 7B-shaped Q4_K_M file; GPTQ: an act-order folder
# whose ref.safetensors becomes its Diff's B. GGUF_B: the GGUF's Diff B (without it the Diff view
# shows no B). GGUF_SPLIT_WEIGHT: a weight of GGUF stored in a k-quant whose codes lie in two
# places (Q6_K, Q5_K, Q3_K), also shown in the Bit map and the Playground.
# The guide itself is a dialog of its own, which --screenshot (the main window) leaves out: with
# xvfb-run and ImageMagick's import installed, a first start (a fresh settings folder) is shot
# on a virtual screen of the window's size, the guide open over the window.
# SIZES, LANGS, THEMES (space-separated) narrow the walk; the defaults are every combination:
#   SIZES="1280x720 1600x1000" LANGS="en de" THEMES="light dark"
# ONLY (a regular expression over shot names) takes a part of it. Exit 1 when a shot failed
# (its log says why), else 0. Nothing is written outside OUT and temporary folders.
set -u

if [ $# -lt 4 ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
app=$1 out=$2 gguf=$3 gptq=$4 ggufB=${5:-} split=${6:-}
sizes=${SIZES:-"1280x720 1600x1000"}
langs=${LANGS:-"en de"}
themes=${THEMES:-"light dark"}
only=${ONLY:-.}
mkdir -p "$out" || exit 2
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR=$(mktemp -d) || exit 2
    export XDG_RUNTIME_DIR
fi

failed=0
# shoot NAME ARGS...: one screenshot at the current size, language and theme.
shoot() {
    local name=$1
    shift
    [[ $name =~ $only ]] || return 0
    if ! timeout 600 "$app" "$@" --size "$size" --lang "$lang" --theme "$theme" \
        --screenshot "$out/$name.png" >"$out/$name.log" 2>&1; then
        echo "FAILED $name (see $out/$name.log)" >&2
        failed=1
    else
        echo "$name"
    fi
}

# guide NAME: the first start's guide over the window, on a virtual screen of the window's size.
guide() {
    local name=$1
    [[ $name =~ $only ]] || return 0
    command -v xvfb-run >/dev/null && command -v import >/dev/null || return 0
    local settings
    settings=$(mktemp -d) || return 0
    # The app runs until the shot is taken; it is ended by its own process id.
    if ! XDG_CONFIG_HOME=$settings QT_QPA_PLATFORM=xcb timeout 120 xvfb-run -a -s "-screen 0 ${size}x24" \
        bash -c '"$1" --size "$2" --lang "$3" --theme "$4" & app=$!; sleep 8; import -window root "$5"; kill $app' \
        guide "$app" "$size" "$lang" "$theme" "$out/$name.png" >"$out/$name.log" 2>&1; then
        echo "FAILED $name (see $out/$name.log)" >&2
        failed=1
    else
        echo "$name"
    fi
    rm -rf "$settings"
}

for size in $sizes; do
    for lang in $langs; do
        for theme in $themes; do
            tag=$size-$lang-$theme
            for ck in gguf gptq; do
                if [ $ck = gguf ]; then path=$gguf b=$ggufB; else path=$gptq b=$gptq/ref.safetensors; fi
                shoot "$tag-$ck-tensors" "$path" --view tensors
                for mode in bits bytes matrix; do
                    shoot "$tag-$ck-bitmap-$mode" "$path" --view bitmap --bitmap-mode $mode
                done
                for view in slots scales error budget recipe verify playground; do
                    shoot "$tag-$ck-$view" "$path" --view $view
                done
                if [ -n "$b" ]; then
                    shoot "$tag-$ck-diff" "$path" --view diff --diff "$b"
                else
                    shoot "$tag-$ck-diff" "$path" --view diff
                fi
            done
            if [ -n "$split" ]; then
                for mode in bits bytes; do
                    shoot "$tag-gguf-split-bitmap-$mode" "$gguf" --weight "$split" --view bitmap --bitmap-mode $mode
                done
                shoot "$tag-gguf-split-playground" "$gguf" --weight "$split" --view playground
            fi
            guide "$tag-guide"
            steps=$("$app" --help | sed -n 's/.*(1-\([0-9]*\)).*/\1/p' | head -1)
            for step in $(seq 1 "${steps:-8}"); do
                shoot "$tag-walk-$step" --walk "$step"
            done
        done
    done
done
exit $failed
