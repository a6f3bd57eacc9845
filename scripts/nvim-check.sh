#!/usr/bin/env bash
# `isa lsp` in a real Neovim, headless (scripts/nvim/check.lua): rename across files,
# quick fixes, inlay hints, and (Neovim >= 0.9) files changed on disk. Uses the `nvim`
# on PATH, or installs Debian's when run as root. Prints what was checked and what was
# not run for this Neovim version; exits 1 on a failure.
#
#   bash scripts/nvim-check.sh            # builds `isa` (debug) first
#   ISA_BIN=target/release/isa bash scripts/nvim-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvim >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
    else
        echo "nvim-check: no nvim on PATH (and not root to install it)" >&2
        exit 1
    fi
fi
if [ -z "${ISA_BIN:-}" ]; then
    cargo build --quiet --bin isa
    ISA_BIN="$PWD/target/debug/isa"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/spec"
cp isa-spec/*.isa "$work/spec/"
ISA_BIN="$(realpath "$ISA_BIN")" SPEC_DIR="$work/spec" NVIM_CHECK_LOG="$work/log" \
    timeout 300 nvim --headless --clean -n -u NONE -c "luafile scripts/nvim/check.lua" \
    >/dev/null 2>"$work/stderr" && status=0 || status=$?
cat "$work/log" 2>/dev/null || true
if [ "$status" != 0 ] || ! grep -q '^ok: inlay hint' "$work/log"; then
    echo "nvim-check: failed (status $status)" >&2
    cat "$work/stderr" >&2
    exit 1
fi
