#!/usr/bin/env bash
# Compiles the generated code of many specs under clippy (warnings denied), as a crate
# that depends on the API as a user's would: the generated code of every spec that
# checks clean must be warning-free, not only the bundled spec's.
#
#   scripts/lint-specs.sh [-n N] [--decode] [--debug] PATH...
#
#   -n N   at most N specs, taken evenly from the ones that check clean (default 40)
#   --decode  then also run each spec's generated decoder against the model on words
#          of every opcode, their one-bit changes and random words
#          (scripts/lint-specs/main.rs, format-checked and under clippy with
#          warnings denied first, with its copies of tests/common/*.rs): the same
#          verdict, or exit 1
#   --debug   check and generate with the debug build of `isa` (target/debug/isa, which
#          `cargo test` has built) instead of building the release one: for a few
#          specs, as CI runs it; the release build pays off on many
#   PATH   spec files, or directories of them (every file counts as one spec, as the
#          `spec_gen` fuzz target feeds them: fuzz/corpus/spec_gen)
#
# Exit 1 when clippy finds anything (the spec files involved are named) or a decoder
# disagrees with the model, 0 otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

max=40
decode=0
profile=release
paths=()
while [ $# -gt 0 ]; do
    case "$1" in
    -n) max="$2"; shift 2 ;;
    --decode) decode=1; shift ;;
    --debug) profile=debug; shift ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) paths+=("$1"); shift ;;
    esac
done
[ ${#paths[@]} -gt 0 ] || { echo "lint-specs.sh: give spec files or directories" >&2; exit 2; }

if [ "$profile" = release ]; then
    cargo build --quiet --release --bin isa
else
    cargo build --quiet --bin isa
fi
isa="./target/$profile/isa"
files=()
for p in "${paths[@]}"; do
    if [ -d "$p" ]; then
        while IFS= read -r f; do files+=("$f"); done < <(find "$p" -maxdepth 1 -type f | sort)
    elif [ -f "$p" ]; then
        files+=("$p")
    fi
done
clean=()
for f in "${files[@]}"; do
    if timeout 20 "$isa" check "$f" --quiet -A warnings >/dev/null 2>&1; then
        clean+=("$f")
    fi
done
echo "lint-specs.sh: ${#clean[@]} of ${#files[@]} specs check clean"
[ ${#clean[@]} -gt 0 ] || exit 0

crate="$root/target/lint-specs"
rm -rf "$crate/src" "$crate/specs.rs"
mkdir -p "$crate/src"
cat >"$crate/Cargo.toml" <<EOF
[package]
name = "lint-specs"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
# The run-time engines generated code calls by path.
isa-rt = { path = "$root/isa-rt" }
EOF
if [ "$decode" = 1 ]; then
    printf 'isa-gen = { path = "%s/isa-gen" }\nisa-spec = { path = "%s/isa-spec" }\n' "$root" "$root" >>"$crate/Cargo.toml"
    mkdir -p "$crate/src/bin/decode"
    cp "$root/scripts/lint-specs/main.rs" "$crate/src/bin/decode/main.rs"
    cp "$root/tests/common/mod.rs" "$crate/src/bin/decode/common.rs"
    cp "$root/tests/common/verdict.rs" "$crate/src/bin/decode/verdict.rs"
fi
printf '#![no_std]\n#![allow(rustdoc::all)]\n' >"$crate/src/lib.rs"
step=$(((${#clean[@]} + max - 1) / max))
n=0
: >"$crate/specs.txt"
for ((i = 0; i < ${#clean[@]}; i += step)); do
    f="${clean[$i]}"
    if timeout 60 "$isa" gen "$f" -o "$crate/src/m$n.rs" >/dev/null 2>&1; then
        printf 'pub mod m%s {\n    include!("m%s.rs");\n}\n' "$n" "$n" >>"$crate/src/lib.rs"
        echo "m$n $f" >>"$crate/specs.txt"
        n=$((n + 1))
    fi
done
echo "lint-specs.sh: clippy on the generated code of $n specs"
if ! (cd "$crate" && CARGO_TARGET_DIR="$crate/target" cargo clippy --quiet --offline --lib -- -D warnings) 2>"$crate/clippy.log"; then
    cat "$crate/clippy.log" >&2
    echo "lint-specs.sh: clippy found problems in the code of these specs:" >&2
    grep -o 'src/m[0-9]*\.rs' "$crate/clippy.log" | sort -u | while read -r m; do
        id=$(basename "$m" .rs)
        grep "^$id " "$crate/specs.txt" >&2 || true
    done
    exit 1
fi
echo "lint-specs.sh: clean"
[ "$decode" = 1 ] || exit 0

{
    echo "/// Each spec and its generated decoder."
    echo "const SPECS: &[(&str, Decoder)] = &["
    while read -r id f; do
        printf '    ("%s", generated_verdict!(%s)),\n' "$(realpath "$f")" "$id"
    done <"$crate/specs.txt"
    echo "];"
} >"$crate/specs.rs"
# The decoder check's own code (main.rs and the copies of tests/common/*.rs) is
# compiled nowhere else: format-check and clippy it as the workspace's code is.
if ! rustfmt --check --edition 2021 "$crate/src/bin/decode/main.rs" >&2; then
    echo "lint-specs.sh: scripts/lint-specs/main.rs is not formatted (rustfmt; diff above)" >&2
    exit 1
fi
if ! (cd "$crate" && CARGO_TARGET_DIR="$crate/target" cargo clippy --quiet --offline --bin decode -- -D warnings) 2>"$crate/clippy-decode.log"; then
    cat "$crate/clippy-decode.log" >&2
    echo "lint-specs.sh: clippy found problems in scripts/lint-specs/main.rs or tests/common/*.rs (above)" >&2
    exit 1
fi
echo "lint-specs.sh: the generated decoders of $n specs against the model"
(cd "$crate" && CARGO_TARGET_DIR="$crate/target" cargo run --quiet --offline --bin decode)
