#!/usr/bin/env bash
# Mutation testing with cargo-mutants over the modules where a wrong answer is silent:
# each mutant (a `+` made `-`, a function made to return a default, …) is built and the
# tests that cover its module are run; a mutant no test fails on ("missed") is a gap in
# the tests or an equivalent mutant (listed in .cargo/mutants.toml and docs/testing.md).
#
#   scripts/mutants.sh [-m MODULE]... [--sample N] [--in-diff BASE] [--budget SECONDS]
#                      [--list] [-o DIR]
#
#   -m MODULE      only this module (repeatable); default: all of them (see `modules`)
#   --sample N     a round-robin 1/N of each module's mutants (an estimate of its score;
#                  N = 1 tests all of them); --sample N/K takes the K-th such sample
#                  (0 <= K < N), so that successive runs see other mutants
#   --in-diff BASE only the mutants on lines changed since BASE (`git diff BASE`), in any
#                  module; BASE may be a commit or a file holding one (.ci/mutants-base)
#   --budget S     stop starting new modules after S seconds in all, and stop the one
#                  running then; what was not tested is said, loudly
#   --list         list the mutants that would be tested, test nothing
#   -o DIR         where the reports go (default target/mutants-report): per module,
#                  cargo-mutants' mutants.out (caught.txt, missed.txt, timeout.txt,
#                  unviable.txt, a log per mutant) and a summary line in DIR/summary.txt
#
# Mutants are tested in place (the source file is changed, built, tested and restored),
# so that each build reuses target/ instead of rebuilding the workspace in a copy: do
# not edit the tree meanwhile. The script refuses to start on a tree with uncommitted
# changes to the files it mutates, and checks afterwards that they are unchanged.
# Builds use the `mutants` profile (Cargo.toml). cargo-mutants is installed with
# `cargo install --locked` when missing (the version below); cargo-nextest runs the
# tests when it is installed.
#
# Exit status: 0 when no mutant was missed (timeouts count as caught: the tests did
# not pass), 2 when some were (they are printed), 1 on any other failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

MUTANTS_VERSION=27.1.0

# name | files (globs, space separated) | packages whose tests run | per-mutant test timeout (s)
#      | extra cargo arguments, space separated (features the tests need; often none)
#      | nextest filterset of the tests that run ("all": every test of those packages;
#        last, since a filterset may hold `|`)
# The timeouts are about ten times the tests' time on two cores (a mutant that makes a
# loop endless costs the whole timeout; it counts as caught).
# The test packages are the ones whose tests cover the module: isa-gen's modules are
# tested by isa-gen alone, because every change to isa-gen regenerates and rebuilds the
# `isa` crate and everything above it (minutes a mutant on two cores).
# A filterset leaves out tests that cannot see the module (the compile of generated code
# for hostile specs is 30 s of isa-gen's 40; timing tests only see a mutant that changes
# the complexity): leaving a test out can only lose a kill, never invent one. Without
# cargo-nextest every test of the packages runs.
modules() {
    cat <<'EOF'
sim|isa-runtime/src/exec.rs isa-runtime/src/sync.rs isa-runtime/src/udp.rs isa-runtime/src/bru.rs isa-runtime/src/warp.rs isa-runtime/src/machine.rs isa-runtime/src/livelock.rs|isa-runtime|150||all
codec|isa-gen/src/codegen/decode.rs isa-gen/src/codegen/types.rs|gpu-isa,isa-gen|900||all
asm|isa-gen/src/asm/*.rs|isa-gen|240||not (test(generated_code_of_hostile_specs_compiles) | test(/linear_time/))
object|isa-object/src/*.rs|isa-object,isa-cli|150||all
lints|isa-gen/src/lint/*.rs|isa-gen|240||not (test(generated_code_of_hostile_specs_compiles) | test(/linear_time/))
diff|isa-cli/src/diff/*.rs|isa-cli|150||binary(diff) | test(/diff/)
lsp-pos|isa-cli/src/lsp/pos.rs|isa-cli|150||binary(lsp) | test(/lsp::/)
engines|isa-rt/src/print/mod.rs isa-rt/src/print/plan.rs isa-rt/src/num.rs isa-rt/src/expr.rs isa-rt/src/table.rs|isa-rt|60|--features=isa-rt/alloc|all
matcher|isa-rt/src/asm/mod.rs isa-rt/src/asm/error.rs|isa-rt|60||all
backend|isa-rt/src/backend/mod.rs isa-rt/src/info.rs|isa-rt|20||all
decoder|isa-rt/src/decode/mod.rs|isa-rt|20||all
buffer|isa-rt/src/buffer/mod.rs isa-rt/src/buffer/listing.rs isa-rt/src/buffer/vreg.rs|isa-rt|20||all
regalloc|isa-rt/src/regalloc/mod.rs isa-rt/src/regalloc/cfg.rs isa-rt/src/regalloc/live.rs isa-rt/src/regalloc/assign.rs isa-rt/src/regalloc/check.rs|isa-rt|20|--features=isa-rt/alloc|all
EOF
}

only=()
sample=1
base=""
budget=0
list=0
out="$root/target/mutants-report"
while [ $# -gt 0 ]; do
    case "$1" in
    -m) only+=("$2"); shift 2 ;;
    --sample) sample="$2"; shift 2 ;;
    --in-diff) base="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --list) list=1; shift ;;
    -o) out="$2"; shift 2 ;;
    -h | --help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "mutants.sh: unknown argument '$1' (see --help)" >&2; exit 1 ;;
    esac
done
shard=0
case "$sample" in */*) shard="${sample#*/}" sample="${sample%%/*}" ;; esac
case "$sample$shard" in '' | *[!0-9]*) sample=0 ;; esac
if [ "$sample" -lt 1 ] || [ "$shard" -ge "$sample" ]; then
    echo "mutants.sh: --sample wants N or N/K with 0 <= K < N" >&2
    exit 1
fi
case "$budget" in '' | *[!0-9]*) echo "mutants.sh: --budget wants seconds" >&2; exit 1 ;; esac
if [ ${#only[@]} -gt 0 ]; then
    for m in "${only[@]}"; do
        modules | grep -q "^$m|" || {
            echo "mutants.sh: no module '$m'; the modules: $(modules | cut -d'|' -f1 | tr '\n' ' ')" >&2
            exit 1
        }
    done
fi

if ! cargo mutants --version 2>/dev/null | grep -q "$MUTANTS_VERSION"; then
    echo "installing cargo-mutants $MUTANTS_VERSION (cargo install --locked)…"
    cargo install --quiet --locked --version "$MUTANTS_VERSION" cargo-mutants
fi
# A failing proptest under a mutant must neither write its case into the committed
# *.proptest-regressions files nor spend minutes shrinking it.
export PROPTEST_DISABLE_FAILURE_PERSISTENCE=1 PROPTEST_MAX_SHRINK_ITERS=0
test_tool=cargo
if cargo nextest --version >/dev/null 2>&1; then
    test_tool=nextest
fi

diff_file=""
if [ -n "$base" ]; then
    if [ -f "$base" ]; then
        base="$(tr -d '[:space:]' <"$base")"
    fi
    if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
        echo "mutants.sh: '$base' is not a commit of this clone (a shallow clone? fetch deeper)" >&2
        exit 1
    fi
    mkdir -p "$out"
    diff_file="$out/in-diff.patch"
    git diff "$base" -- '*.rs' >"$diff_file"
    echo "mutants on lines changed since $(git rev-parse --short "$base") ($(git rev-list --count "$base"..HEAD) commits)"
fi

mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
start=$(date +%s)
missed_any=0
exhausted=()
while IFS='|' read -r name files tests timeout extra filter <&3; do
    if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then
        continue
    fi
    # `--tests`: the test targets only, not the examples and benches a plain `cargo
    # test` also builds (a third of a mutant's build in isa-runtime).
    args=(--in-place --workspace --profile mutants --test-tool "$test_tool" --no-shuffle
        --timeout "$timeout" --build-timeout 1200 --colors never --cargo-arg=--tests)
    for f in $files; do args+=(-f "$f"); done
    # Extra cargo arguments of the module (features its tests need).
    for e in $extra; do args+=("--cargo-arg=$e"); done
    for t in ${tests//,/ }; do args+=(--test-package "$t"); done
    if [ "$test_tool" = nextest ] && [ "$filter" != all ]; then
        args+=("--cargo-test-arg=-E" "--cargo-test-arg=$filter")
    fi
    if [ "$sample" -gt 1 ]; then
        args+=(--shard "$shard/$sample" --sharding round-robin)
    fi
    if [ -n "$diff_file" ]; then
        args+=(--in-diff "$diff_file")
    fi
    count=$(cargo mutants --list "${args[@]}" 2>/dev/null | grep -c '\.rs:[0-9]' || true)
    if [ "$list" = 1 ]; then
        echo "== $name: $count mutants (tests: $tests)"
        cargo mutants --list "${args[@]}" 2>/dev/null | grep '\.rs:[0-9]' || true
        continue
    fi
    if [ "$count" = 0 ]; then
        echo "$name: no mutants to test" | tee -a "$summary"
        continue
    fi
    left=0
    if [ "$budget" -gt 0 ]; then
        left=$((budget - ($(date +%s) - start)))
        if [ "$left" -le 0 ]; then
            exhausted+=("$name ($count mutants not tested)")
            continue
        fi
    fi
    # The tree must be as committed where mutants go, and be so again afterwards.
    paths=()
    for f in $files; do paths+=("$f"); done
    if ! git diff --quiet HEAD -- "${paths[@]}"; then
        echo "mutants.sh: uncommitted changes in $name's files; commit or stash them first" >&2
        exit 1
    fi
    echo "== $name: $count mutants, tests of $tests${filter:+ ($filter)} (timeout ${timeout} s a mutant)"
    t0=$(date +%s)
    rm -rf "$out/$name"
    rc=0
    if [ "$budget" -gt 0 ]; then
        timeout --signal=INT --kill-after=60 "$left" \
            cargo mutants "${args[@]}" -o "$out/$name" || rc=$?
    else
        cargo mutants "${args[@]}" -o "$out/$name" || rc=$?
    fi
    if ! git diff --quiet HEAD -- "${paths[@]}"; then
        echo "mutants.sh: $name's files differ from HEAD after the run: a mutant was left" \
            "in place (git diff; git checkout -- the files)" >&2
        exit 1
    fi
    dir="$out/$name/mutants.out"
    n() { if [ -f "$dir/$1" ]; then grep -c . "$dir/$1" || true; else echo 0; fi; }
    caught=$(n caught.txt) missed=$(n missed.txt) timedout=$(n timeout.txt) unviable=$(n unviable.txt)
    viable=$((caught + missed + timedout))
    score="-"
    [ "$viable" -gt 0 ] && score="$(((caught + timedout) * 1000 / viable))"
    [ "$score" != "-" ] && score="$((score / 10)).$((score % 10))%"
    msg="$name: $((caught + timedout))/$viable viable mutants caught ($score), $missed missed, $timedout timed out, $unviable unviable, $(($(date +%s) - t0)) s"
    if [ "$rc" = 124 ] || [ "$rc" = 130 ] || [ $((caught + missed + timedout + unviable)) -lt "$count" ]; then
        msg="$msg; budget ran out after $((caught + missed + timedout + unviable)) of $count"
        exhausted+=("$name ($((count - caught - missed - timedout - unviable)) of $count mutants not tested)")
    fi
    echo "$msg" | tee -a "$summary"
    if [ "$missed" -gt 0 ]; then
        missed_any=1
        sed 's/^/  MISSED /' "$dir/missed.txt"
    fi
    if [ "$rc" != 0 ] && [ "$rc" != 2 ] && [ "$rc" != 3 ] && [ "$rc" != 124 ] && [ "$rc" != 130 ]; then
        echo "mutants.sh: cargo mutants failed for $name (exit $rc): see $out/$name" >&2
        exit 1
    fi
done 3< <(modules)
[ "$list" = 1 ] && exit 0

echo "== summary ($(($(date +%s) - start)) s; reports in $out)"
cat "$summary"
if [ ${#exhausted[@]} -gt 0 ]; then
    echo "BUDGET EXHAUSTED (${budget} s): not tested:"
    printf '  %s\n' "${exhausted[@]}"
fi
if [ "$missed_any" = 1 ]; then
    echo "missed mutants: kill each with a test of the behaviour, or list it as equivalent" \
        "in .cargo/mutants.toml and docs/testing.md" >&2
    exit 2
fi
