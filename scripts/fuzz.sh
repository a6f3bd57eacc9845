#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ (cargo-fuzz, libFuzzer) for a given time each.
#
#   scripts/fuzz.sh [-t SECONDS] [-n EXECUTIONS] [-j JOBS] [--if-available] [TARGET...]
#
#   -t SECONDS      time per target (default 60)
#   -n [TARGET=]N   and at least N executions (of TARGET, or of every target): keeps
#                   running after the time is up until there are; may be repeated
#   -j JOBS         targets run in parallel (default 1; each target uses one core)
#   --if-available  exit 0 with a message when nightly or cargo-fuzz is missing
#                   (what CI uses: installing cargo-fuzz takes minutes, so CI does not)
#   TARGET          spec_bytes spec_text spec_gen decode asm sim object regalloc (default: all)
#
# Needs the nightly toolchain and cargo-fuzz (`rustup toolchain install nightly`,
# `cargo install cargo-fuzz`). Seed corpora are made fresh from the repository each run
# (into fuzz/corpus/seeds/, git-ignored): the spec files and the malformed-spec corpus,
# each optype of the authors' files with the groups it needs, the `__Examples` lines,
# and their words as assembled by `isa asm`. What a target learns is kept in
# fuzz/corpus/TARGET/ between runs. The saved regression inputs (see fuzz/README.md)
# are replayed first as part of the corpus.
#
# Targets are built in release mode with debug assertions and overflow checks (`-a`),
# as `cargo test` runs the code. A crash leaves its input in fuzz/artifacts/TARGET/
# and makes the script exit 1; reproduce it with
# `cargo +nightly fuzz run -a TARGET fuzz/artifacts/TARGET/crash-…`.
# Logs are in fuzz/logs/TARGET.log; the summary gives executions and time per target.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# The paths below are the default target directories (target/, fuzz/target/).
unset CARGO_TARGET_DIR

seconds=60
jobs=1
declare -A min_execs=()
if_available=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
    -t) seconds="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -n)
        case "$2" in
        *=*) min_execs[${2%%=*}]="${2#*=}" ;;
        *) min_execs[all]="$2" ;;
        esac
        shift 2 ;;
    --if-available) if_available=1; shift ;;
    -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done
all=(spec_bytes spec_text spec_gen decode asm sim object regalloc)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
    case " ${all[*]} " in *" $t "*) ;; *) echo "fuzz.sh: unknown target $t (targets: ${all[*]})" >&2; exit 2 ;; esac
done

missing=""
rustup toolchain list 2>/dev/null | grep -q '^nightly' || missing="the nightly toolchain"
cargo +nightly fuzz --version >/dev/null 2>&1 || missing="${missing:+$missing and }cargo-fuzz"
if [ -n "$missing" ]; then
    msg="fuzz.sh: $missing not installed (rustup toolchain install nightly; cargo install cargo-fuzz)"
    if [ "$if_available" = 1 ]; then
        echo "$msg: skipping the fuzz targets"
        exit 0
    fi
    echo "$msg" >&2
    exit 2
fi

# -- seed corpora -------------------------------------------------------------------
seeds=fuzz/corpus/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{spec_bytes,spec_text,spec_gen,decode,asm,sim,object,regalloc} fuzz/logs
cp isa-spec/*.isa isa-gen/tests/bad-specs/*.isa "$seeds/spec_bytes/"
cp isa-gen/tests/bad-specs/*.isa "$seeds/spec_gen/"
# Our specs besides the bundled one (other head layouts, unsigned offsets, no guard).
cp tests/specs/*/*.isa "$seeds/spec_bytes/"
cp tests/specs/*/*.isa "$seeds/spec_gen/"
cp isa-spec/*.isa "$seeds/spec_text/"
cp isa-gen/tests/bad-specs/0[0-9]-*.isa "$seeds/spec_text/"
for f in isa-spec/{bru,misc,sync,udp}.isa; do
    # Each optype (with its opcodes) after every other definition of its file (groups,
    # types), so that it resolves next to base.isa on its own.
    awk -v out="$seeds/spec_text" -v base="$(basename "$f" .isa)" '
        function flush() {
            if (kind == "optype") {
                file = out "/" base "-" (++n) ".isa"
                printf "%s%s", groups, cur > file
                close(file)
            } else if (kind == "group") {
                groups = groups cur
            }
            cur = ""
        }
        /^__DefOptype/ { flush(); kind = "optype"; cur = $0 "\n"; next }
        /^__DefOpcode/ { cur = cur $0 "\n"; next }
        /^__Def/ { flush(); kind = "group" }
        { cur = cur $0 "\n" }
        END { flush() }
    ' "$f"
    # Every line of the `__Examples` code blocks, one per file, and whole blocks.
    awk -v out="$seeds/asm" -v base="$(basename "$f" .isa)" '
        /^[ \t]*__[A-Za-z]/ { ex = ($1 == "__Examples"); fence = 0; next }
        ex && /^[ \t]*```/ {
            fence = !fence
            if (!fence) { close(block) } else { block = out "/" base "-block-" (++b) ".s" }
            next
        }
        ex && fence && NF {
            file = out "/" base "-" (++n) ".s"
            print > file
            close(file)
            print >> block
        }
    ' "$f"
done
cargo build --quiet --release --bin isa
for s in "$seeds"/asm/*-[0-9]*.s; do
    ./target/release/isa asm "$s" -o "$seeds/decode/$(basename "$s" .s).bin" >/dev/null 2>&1 || true
done
# Objects: the example blocks assembled, one with an external call (the hand-made
# hostile objects are in the regression corpus, replayed below).
for s in "$seeds"/asm/*-block-*.s; do
    ./target/release/isa asm "$s" -o "$seeds/object/$(basename "$s" .s).o" >/dev/null 2>&1 || true
done
printf '.global k\n.extern f\nk: CALL.REL RZ, `(f)\n@P0 BRA `(k)\nEXIT\n' >"$seeds/object/call.s"
./target/release/isa asm "$seeds/object/call.s" -o "$seeds/object/call.o"
rm "$seeds/object/call.s"
# The simulator's input is a byte stream (see fuzz/src/sim.rs): a few hand-made starts.
printf '\xff\xff\xff\xff\x00\x00\x00\x08' >"$seeds/sim/all-lanes"
printf '\x0f\x0f\x0f\x0f\x03\x00\x01\x05\x00\x00\x00\x00\x00\x10' >"$seeds/sim/some-state"
# The allocator's input chooses a program (see fuzz/src/regalloc.rs): a few starts.
printf '\x80\x01\x00\x03\x06\x0c\x0d\x0e\x0f\x01\x02\x03\x04\x05\x06\x07\x08' >"$seeds/regalloc/mixed"
printf '\x40\x00\x0e\x00\x0c\x01\x02\x0c\x03\x08\x07\x05\x06' >"$seeds/regalloc/loops"

max_len() {
    case "$1" in
    spec_bytes | spec_gen) echo 4096 ;;
    spec_text) echo 32768 ;;
    decode) echo 64 ;;
    object) echo 4096 ;;
    *) echo 1024 ;;
    esac
}

# -- build, then run ----------------------------------------------------------------
# Built once, then the binaries are run directly: `cargo fuzz run` would rebuild (and
# fail) whenever a source file changes or breaks mid-run. No sanitizer (`-s none`): the
# workspace has no `unsafe` code, and AddressSanitizer makes the spec targets several
# times slower; panics, overflow checks, timeouts and the memory limit still apply.
echo "fuzz.sh: building ${targets[*]}"
# `spec_bytes` is built a second time without comparison tracing (into
# fuzz/target/fast/): it runs 2.5 times faster so, and its inputs need little help to
# find the DSL's keywords (seeded with whole spec files, plus a keyword dictionary).
fast=(spec_bytes)
build() {
    cargo +nightly fuzz build -O -a -s none "$@" >>fuzz/logs/build.log 2>&1 || {
        cat fuzz/logs/build.log >&2
        echo "fuzz.sh: the fuzz targets do not build" >&2
        exit 2
    }
}
: >fuzz/logs/build.log
build
for t in "${fast[@]}"; do
    case " ${targets[*]} " in *" $t "*) build --no-trace-compares --target-dir fuzz/target/fast "$t" ;; esac
done
triple="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bin() {
    case " ${fast[*]} " in
    *" $1 "*) echo "fuzz/target/fast/$triple/release/$1" ;;
    *) echo "fuzz/target/$triple/release/$1" ;;
    esac
}

run() {
    local t="$1"
    local corpus=("fuzz/corpus/$t" "$seeds/$t")
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    for d in isa-gen/tests/regressions/"$t" tests/regressions/"$t" isa-runtime/tests/regressions/"$t" isa-object/tests/regressions/"$t"; do
        [ -d "$d" ] && corpus+=("$d")
    done
    local dict=()
    [ -f "fuzz/dict/$t.dict" ] && dict=("-dict=fuzz/dict/$t.dict")
    local log="fuzz/logs/$t.log" total=0 start round=0 limit
    rm -f "fuzz/logs/$t.summary"
    local min="${min_execs[$t]:-${min_execs[all]:-0}}"
    start=$(date +%s)
    : >"$log"
    # First for the given time; then, if -n asks for more executions, on until there
    # are that many (the corpus carries over, so this is one longer run).
    while :; do
        round=$((round + 1))
        if [ "$round" = 1 ]; then
            limit=(-max_total_time="$seconds")
        else
            limit=(-runs=$((min - total)))
        fi
        echo "== round $round" >>"$log"
        local ok=0
        "$(bin "$t")" -artifact_prefix="fuzz/artifacts/$t/" "${limit[@]}" \
            -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 "${dict[@]}" "${corpus[@]}" >>"$log" 2>&1 || ok=$?
        total=$((total + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)))
        echo "$total $(($(date +%s) - start))" >"fuzz/logs/$t.summary"
        [ "$ok" = 0 ] || return 1
        [ "$total" -ge "$min" ] && return 0
    done
}

status=0
pids=()
names=()
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    more=""
    min="${min_execs[$t]:-${min_execs[all]:-0}}"
    [ "$min" -gt 0 ] && more=" and at least $min executions"
    echo "fuzz.sh: $t for ${seconds}s$more (log: fuzz/logs/$t.log)"
    run "$t" &
    pids+=($!)
    names+=("$t")
done
for k in "${!pids[@]}"; do
    if ! wait "${pids[$k]}"; then
        echo "fuzz.sh: ${names[$k]} FAILED; see fuzz/logs/${names[$k]}.log and fuzz/artifacts/${names[$k]}/" >&2
        status=1
    fi
done

# A sample of the specs `spec_gen` found (its corpus) compiled under clippy: generated
# code must be warning-free for every spec that checks, not only parse; and their
# generated decoders must agree with the model word by word.
case " ${targets[*]} " in
*" spec_gen "*)
    bash scripts/lint-specs.sh -n 40 --decode fuzz/corpus/spec_gen || {
        echo "fuzz.sh: generated code of a spec_gen spec is not clippy-clean or decodes unlike the model (above)" >&2
        status=1
    }
    ;;
esac

echo "fuzz.sh: summary (target, executions, seconds, executions/s)"
for t in "${targets[@]}"; do
    execs=0 secs=0
    [ -f "fuzz/logs/$t.summary" ] && read -r execs secs <"fuzz/logs/$t.summary"
    printf '  %-10s %12s %8s %8s\n' "$t" "$execs" "$secs" "$((execs / (secs > 0 ? secs : 1)))"
done
exit $status
