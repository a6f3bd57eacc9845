#!/usr/bin/env bash
# How long `isa diff` takes as a spec grows: synthetic specs of several sizes.
#
#   bash benches/diff.sh                    # builds target/release/isa, times it
#   bash benches/diff.sh OLD_ISA NEW_ISA    # the given binaries, alternating per run
#   bash benches/diff.sh spec KIND N        # prints one generated spec (below)
#
# Spec kinds, each N items of one sort beside a fixed minimum:
#   values      one enumeration `Big` of N values (implicit codes 0..N-1), the type of
#               a modifier of one opcode;
#   opcodes     N optypes of a 16-bit `Optype`, one opcode each with a guard and two
#               register operands (`OPi Rd, Ra`);
#   opcodes-rb  the same with the second operand called `rb`;
#   types       N enumerations of 3 values, each the type of a modifier of one of 64
#               opcodes (so the verdict prints their values);
#   holes       `values` with the even codes only (V<i> = 2i: a range a value);
#   holes-rb    the same with the source operand called `rb`;
#   opcodes-far `opcodes` with every optype code raised by 0x8000 (every opcode moved).
#
# Rows: `values`, `opcodes` and `types` diffed against themselves (every item matched
# with its namesake, every opcode found identical), and `renamed`: `opcodes` against
# `opcodes-rb`, where no layout is identical, so every opcode's words are decoded and
# printed under both (about 600 words an opcode; compatible); `holes`: `holes` against
# `holes-rb`, so the enumeration's field is listed or probed in full; `moved`: `opcodes`
# against `opcodes-far`, every opcode a break that says it moved.
#
# Each binary runs each diff DIFF_ROUNDS times (default 3; a run over 10 s once),
# binaries alternating within a round; the best wall time is printed, in a Markdown
# table, beside `isa check` of the (OLD) spec by the last binary: a diff checks two.
# Sizes: DIFF_VALUES, DIFF_OPCODES, DIFF_TYPES, DIFF_RENAMED, DIFF_HOLES, DIFF_MOVED
# (space-separated lists; an empty list skips the row).
# A run over DIFF_TIMEOUT seconds (default 120) is stopped and shown as `>T`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The smallest width (at least 1) whose codes reach n - 1.
width_for() {
    local n=$1 w=1
    while [ $((1 << w)) -lt "$n" ]; do w=$((w + 1)); done
    echo "$w"
}

spec() {
    local kind=$1 n=$2
    awk -v kind="$kind" -v n="$n" -v w="$(width_for "$n")" '
    function regs() {
        print "__DefRegFile Reg<8>\n    R 0..254;\n    RZ = 255;"
        print "__DefRegFile Pred<3>\n    P 0..6;\n    PT = 7;"
        print "__DefGroup ALL"
    }
    # Optype i with opcode OPi_R, source operand `src`; `extra` adds encoding lines.
    function op(i, extra, src) {
        printf "__DefOptype OP%d: [ALL]\n  __Encoding\n    field<0, 16> Optype optype == OP%d;\n", i, i
        print "    field<16, 8> Reg rd;\n    field<125, 3> Pred pg = PT;"
        printf "__DefOpcode OP%d_R: [OP%d]\n  __Encoding\n    field<24, 8> Reg %s;\n%s", i, i, src, extra
        printf "  __OperandInfo\n    InList<%s>;\n    OutList<rd>;\n    Order<pg, rd, %s>;\n", src, src
    }
    function optypes(k) {
        print "__DefBitFieldType Optype<16>"
        for (i = 0; i < k; i++) printf "    OP%d = %d;\n", i, i + 1
    }
    BEGIN {
        if (kind == "values") {
            printf "__DefBitFieldType Big<%d>\n", w
            for (i = 0; i < n; i++) printf "    V%d;\n", i
            optypes(1); regs()
            op(0, sprintf("    field<32, %d> Big big = V0;\n", w), "ra")
        } else if (kind == "holes" || kind == "holes-rb") {
            printf "__DefBitFieldType Big<%d>\n", w + 1
            for (i = 0; i < n; i++) printf "    V%d = %d;\n", i, 2 * i
            optypes(1); regs()
            op(0, sprintf("    field<32, %d> Big big = V0;\n", w + 1), kind == "holes" ? "ra" : "rb")
        } else if (kind == "opcodes" || kind == "opcodes-rb" || kind == "opcodes-far") {
            if (kind == "opcodes-far") {
                print "__DefBitFieldType Optype<16>"
                for (i = 0; i < n; i++) printf "    OP%d = %d;\n", i, i + 1 + 32768
            } else optypes(n)
            regs()
            for (i = 0; i < n; i++) op(i, "", kind == "opcodes-rb" ? "rb" : "ra")
        } else if (kind == "types") {
            for (i = 0; i < n; i++) printf "__DefBitFieldType T%d<2>\n    A%d;\n    B%d;\n    C%d;\n", i, i, i, i
            optypes(64); regs()
            for (i = 0; i < 64; i++) {
                t = i * int(n / 64)
                op(i, sprintf("    field<32, 2> T%d m = A%d;\n", t, t), "ra")
            }
        } else {
            print "unknown spec kind " kind > "/dev/stderr"; exit 2
        }
    }'
}

if [ "${1:-}" = spec ]; then
    spec "$2" "$3"
    exit
fi

if [ $# -eq 0 ]; then
    (cd "$root" && cargo build --release -p isa-cli --quiet)
    set -- "$root/target/release/isa"
fi
rounds=${DIFF_ROUNDS:-3}
limit=${DIFF_TIMEOUT:-120}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Wall time of `isa ARGS...` in seconds, or `>LIMIT`; it must exit 0.
run() {
    local t0 t1 code=0
    t0=$(date +%s.%N)
    timeout "$limit" "$@" >"$dir/out" 2>&1 || code=$?
    t1=$(date +%s.%N)
    if [ "$code" = 124 ]; then
        echo ">$limit"
    elif [ "$code" != 0 ] && ! { [ "$code" = 1 ] && [ "${ok1:-}" = 1 ]; }; then
        echo "failed ($code): $*" >&2
        head -5 "$dir/out" >&2
        exit 1
    else
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
    fi
}

best() { tr ' ' '\n' | grep -v '^$' | sort -g | head -1; }

echo "| diff | $(printf '%s | ' "$@")isa check |"
echo "| --- |$(printf ' ---: |%.0s' "$@") ---: |"
for case in \
    $(for n in ${DIFF_VALUES-5000 20000 40000 100000}; do echo "values:$n"; done) \
    $(for n in ${DIFF_OPCODES-1024 2048 4096 8192}; do echo "opcodes:$n"; done) \
    $(for n in ${DIFF_TYPES-4000 16000 64000}; do echo "types:$n"; done) \
    $(for n in ${DIFF_RENAMED-512 1024 2048 4096}; do echo "renamed:$n"; done) \
    $(for n in ${DIFF_HOLES-5000 20000 40000 100000}; do echo "holes:$n"; done) \
    $(for n in ${DIFF_MOVED-1024 4096 8192}; do echo "moved:$n"; done); do
    kind=${case%:*}
    n=${case#*:}
    old="$dir/$kind-$n.isa"
    new=$old
    if [ "$kind" = renamed ] || [ "$kind" = holes ] || [ "$kind" = moved ]; then
        case $kind in
        renamed) a=opcodes b=opcodes-rb ;;
        holes) a=holes b=holes-rb ;;
        moved) a=opcodes b=opcodes-far ;;
        esac
        spec "$a" "$n" >"$old"
        new="$dir/$kind-$n-new.isa"
        spec "$b" "$n" >"$new"
    else
        spec "$kind" "$n" >"$old"
    fi
    declare -A times=()
    for ((r = 0; r < rounds; r++)); do
        for bin in "$@"; do
            # A binary that timed out or took over 10 s is not run again.
            case ${times[$bin]:-} in ">"* | " "[1-9][0-9].* | " "[1-9][0-9][0-9]*) continue ;; esac
            # `moved` is incompatible: exit 1 is its expected verdict.
            t=$( [ "$kind" = moved ] && ok1=1; run "$bin" diff "$old" "$new")
            case $t in
            ">"*) times[$bin]=$t ;;
            *) times[$bin]="${times[$bin]:-} $t" ;;
            esac
        done
    done
    row="| $kind $n ($(wc -c <"$old") bytes) |"
    for bin in "$@"; do
        case ${times[$bin]} in
        ">"*) row="$row ${times[$bin]} s |" ;;
        *) row="$row $(echo "${times[$bin]}" | best) s |" ;;
        esac
    done
    check=$(for ((r = 0; r < rounds; r++)); do run "${@: -1}" check "$old"; echo; done | best)
    echo "$row $check s |"
    unset times
done
