#!/usr/bin/env bash
# The planted-bug corpus (bench/bug-corpus/, bench/README.md): small slips modelled on
# real bug reports, kept as patches and never in the product tree. This script applies them to a
# scratch copy of the committed tree, builds it, and measures the exploration strategies on it.
#
#   bench/bug_corpus.sh prepare            copy HEAD's tree to build-bugs/src, apply every patch,
#                                          build eosim and bench_exploration there (ccache helps)
#   bench/bug_corpus.sh list               the corpus: bug, scenario, what counts as a catch
#   bench/bug_corpus.sh measure [BUG...] [-- bench_exploration options]
#                                          per bug: bench_exploration on its scenario with the bug
#                                          switched on (EOSIM_PLANTED_BUG=BUG); default: every bug
#   bench/bug_corpus.sh control [-- options]
#                                          the same scenarios with no bug switched on: a catch there
#                                          would be a false alarm of the strategy (or the unplanted engine)
#
# Every patch's slip is compiled in and sleeps unless EOSIM_PLANTED_BUG names it (00-planted-switch
# adds the switch, sim/planted_bug.h, to the scratch copy only), so one scratch build serves all.
# EOSIM_BUG_SCRATCH overrides the scratch folder (default: build-bugs/ in this checkout).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${EOSIM_BUG_SCRATCH:-$root/build-bugs}
src=$scratch/src
corpus=$root/bench/bug-corpus/corpus.txt
bench=$src/build/bench/bench_exploration

bugs() { grep -v '^#' "$corpus" | awk 'NF >= 3 {print $1}'; }
field() { grep -v '^#' "$corpus" | awk -v b="$1" -v f="$2" '$1 == b {print $f}'; }

prepare() {
    # The patched tree is made apart, then copied over the scratch copy file by file where it
    # differs: unchanged files keep their times, so a second prepare rebuilds only what changed.
    local fresh=$scratch/fresh
    rm -rf "$fresh" && mkdir -p "$fresh" "$src"
    git -C "$root" archive HEAD | tar -x -C "$fresh"
    for patch in "$root"/bench/bug-corpus/[0-9][0-9]-*.patch; do
        patch -d "$fresh" -p1 --quiet --forward < "$patch" || { echo "error: $patch does not apply to HEAD" >&2; exit 1; }
    done
    (cd "$fresh" && find . -type f) | while read -r file; do
        if ! cmp -s "$fresh/$file" "$src/$file"; then mkdir -p "$(dirname "$src/$file")" && cp "$fresh/$file" "$src/$file"; fi
    done
    (cd "$src" && find . -path ./build -prune -o -type f -print) | while read -r file; do
        [ -e "$fresh/$file" ] || rm -f "$src/$file"
    done
    rm -rf "$fresh"
    # The same flags as the product build of build.sh (ccache and lld when present), so that every
    # unpatched file is a ccache hit: only the patched files compile.
    local extra=()
    command -v ccache > /dev/null && extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    command -v ld.lld > /dev/null && extra+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
    cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEOSIM_SANITIZE=OFF \
        -DEOSIM_PUBLIC_HEADER_UNITS=OFF "${extra[@]}" ${CMAKE_EXTRA_ARGS:-} > "$scratch/configure.log"
    nice cmake --build "$src/build" -j2 --target eosim bench_exploration
    echo "built $bench with $(ls "$root"/bench/bug-corpus/[0-9][0-9]-*.patch | wc -l) patches"
}

measure_one() {  # bug ("" for none), then bench options
    local bug=$1; shift
    local name=${bug:-none}
    local scenario oracle
    scenario=$(field "$name" 2)
    oracle=$(field "$name" 3)
    local args=(--scenario "$root/scenarios/catalogue/$scenario")
    [ "$oracle" != "-" ] && args+=(--oracle "$oracle")
    echo "== $name"
    EOSIM_PLANTED_BUG=$bug "$bench" "${args[@]}" "$@"
}

case ${1:-help} in
    prepare) prepare ;;
    list) grep -v '^#' "$corpus" ;;
    measure|control)
        mode=$1; shift
        selected=()
        while [ $# -gt 0 ] && [ "$1" != "--" ]; do selected+=("$1"); shift; done
        [ "${1:-}" = "--" ] && shift
        [ -x "$bench" ] || { echo "error: run '$0 prepare' first ($bench missing)" >&2; exit 2; }
        [ ${#selected[@]} -eq 0 ] && mapfile -t selected < <(bugs)
        for bug in "${selected[@]}"; do
            [ -n "$(field "$bug" 2)" ] || { echo "error: unknown bug '$bug' (see '$0 list')" >&2; exit 2; }
            if [ "$mode" = measure ]; then
                measure_one "$bug" "$@"
            else
                scenario=$(field "$bug" 2); oracle=$(field "$bug" 3)
                # Each scenario once (with its catch oracle), however many bugs it serves.
                case " ${controlled:-} " in *" $scenario:$oracle "*) continue ;; esac
                controlled="${controlled:-} $scenario:$oracle"
                echo "== control (no bug) on $scenario"
                args=(--scenario "$root/scenarios/catalogue/$scenario"); [ "$oracle" != "-" ] && args+=(--oracle "$oracle")
                EOSIM_PLANTED_BUG= "$bench" "${args[@]}" "$@"
            fi
        done ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
esac
