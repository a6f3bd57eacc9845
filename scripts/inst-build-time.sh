#!/usr/bin/env bash
# Measures what 1,000 `inst!` invocations add to a crate's build: the same crate is
# built once with 1,000 `inst!(...)` lines and once with 1,000 runtime
# `Instruction::parse("...")` calls (the baseline without the macro). Dependencies are
# built first, so only the crate itself is timed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="$work/target"
lines="$(grep -o 'inst!(.*)), ' "$root/tests/inst_examples.rs" | sed 's/inst!(\(.*\))), /\1/' )"
make_crate() { # name kind
  mkdir -p "$work/$1/src"
  cat > "$work/$1/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2021"
[dependencies]
isa = { path = "$root" }
[workspace]
TOML
  {
    echo "pub fn all() -> Vec<isa::Instruction> { vec!["
    local n=0
    while [ $n -lt 1000 ]; do
      while IFS= read -r l && [ $n -lt 1000 ]; do
        if [ "$2" = macro ]; then echo "    isa::Instruction::from(isa::inst!($l)),"
        else echo "    isa::Instruction::parse(\"$l\").unwrap(),"; fi
        n=$((n+1))
      done <<< "$lines"
    done
    echo "] }"
  } > "$work/$1/src/lib.rs"
}
make_crate with_macro macro
make_crate baseline parse
for c in with_macro baseline; do
  (cd "$work/$c" && cargo build -q 2>/dev/null || true)   # dependencies
  touch "$work/$c/src/lib.rs"
  start=$(date +%s.%N)
  (cd "$work/$c" && cargo build -q)
  end=$(date +%s.%N)
  printf '%s: %.2f s\n' "$c" "$(echo "$end - $start" | bc)"
done
