#!/usr/bin/env bash
# Measures how long a clean release build of the root crate `isa` takes, and how much
# of it is the generated code.
#
#   bash scripts/build-time.sh
#
# 1. clean build: `cargo build --release -p gpu-isa --timings` in an empty target dir
#    (BUILD_TIME_TARGET_DIR, default /tmp/isa-build-time; the workspace's own target/
#    is not touched). Dependencies are fetched first, so downloads do not count.
# 2. per-unit times of that build, from cargo's --timings report: the build script
#    compile, its run (parse + check + generate) and the compile of the generated
#    crate, beside the dependencies.
# 3. regeneration: `touch build.rs` and rebuild: build script recompiled and rerun,
#    generated code recompiled (what a spec edit costs, plus the build.rs link).
# 4. generated code alone: `touch src/lib.rs` and rebuild: only the `isa` crate, i.e.
#    rustc on the generated file.
#
# 5. the peer: a clean release build of a crate that depends on iced-x86 (default
#    features) in its own target dir, right after ours, and ours again with
#    `--no-default-features` (decode and encode only): the ratios the performance goals
#    are stated in (default <= 0.75x iced-x86, decode/encode only <= 0.4x). Skipped with
#    BUILD_TIME_NO_PEER=1 (it downloads iced-x86 once).
#
# Extra cargo settings pass through the environment, e.g.
# CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL=3.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${BUILD_TIME_TARGET_DIR:-/tmp/isa-build-time}"
case "$CARGO_TARGET_DIR" in
"$root"/target | "$root"/target/*)
    echo "BUILD_TIME_TARGET_DIR must not be the workspace's target dir" >&2
    exit 2
    ;;
esac

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
build() { cargo build --release -p gpu-isa "$@" 2>&1 | sed 's/^/    /'; }

echo "== $(nproc) cores, $(cargo --version), $(rustc --version)"
echo "== target dir: $CARGO_TARGET_DIR"
cargo fetch --quiet

rm -rf "$CARGO_TARGET_DIR"
echo "== 1. clean release build"
t0=$(now)
build --timings
t1=$(now)
clean=$(secs "$t0" "$t1")

echo "== 2. units of the clean build (cargo --timings, seconds)"
report="$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html"
if [ -f "$report" ] && command -v python3 >/dev/null; then
    python3 - "$report" <<'EOF'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
if not m:
    print("    (no UNIT_DATA in the timings report)")
    sys.exit()
units = json.loads(m.group(1))
for u in sorted(units, key=lambda u: -u["duration"])[:12]:
    name = f'{u["name"]} {u["version"]}{u.get("target", "")}'
    print(f'    {u["duration"]:7.2f}  {name}')
ours = [u for u in units if u["name"] == "gpu-isa"]
print("    gpu-isa total (build script compile + run + lib): %.2f" % sum(u["duration"] for u in ours))
EOF
else
    echo "    (see $report)"
fi

echo "== 3. regenerate: touch build.rs, rebuild"
touch build.rs
t0=$(now)
build
t1=$(now)
regen=$(secs "$t0" "$t1")

echo "== 4. generated code only: touch src/lib.rs, rebuild"
touch src/lib.rs
t0=$(now)
build
t1=$(now)
lib=$(secs "$t0" "$t1")

out=$(ls -t "$CARGO_TARGET_DIR"/release/build/gpu-isa-*/out/isa.rs | head -1)
echo "== generated file: $(wc -c <"$out") bytes, $(wc -l <"$out") lines"
peer=""
minimal=""
if [ "${BUILD_TIME_NO_PEER:-0}" != 1 ]; then
    echo "== 5. clean release build without default features, and iced-x86's"
    rm -rf "$CARGO_TARGET_DIR"
    t0=$(now)
    build --no-default-features
    t1=$(now)
    minimal=$(secs "$t0" "$t1")
    peer_dir="$CARGO_TARGET_DIR-peer"
    rm -rf "$peer_dir"
    mkdir -p "$peer_dir/crate/src"
    printf '[package]\nname = "peer"\nversion = "0.0.0"\nedition = "2021"\n[workspace]\n[dependencies]\niced-x86 = "1.21"\n' >"$peer_dir/crate/Cargo.toml"
    echo 'pub use iced_x86;' >"$peer_dir/crate/src/lib.rs"
    (cd "$peer_dir/crate" && CARGO_TARGET_DIR="$peer_dir/target" cargo fetch --quiet)
    t0=$(now)
    (cd "$peer_dir/crate" && CARGO_TARGET_DIR="$peer_dir/target" cargo build --release 2>&1 | sed 's/^/    /')
    t1=$(now)
    peer=$(secs "$t0" "$t1")
fi

echo "== summary (wall seconds)"
echo "clean release build:            $clean"
echo "regenerate + compile generated: $regen"
echo "compile generated code only:    $lib"
if [ -n "$peer" ]; then
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
    echo "clean, --no-default-features:   $minimal"
    echo "clean iced-x86 (default):       $peer"
    echo "ratio default / iced-x86:       $(ratio "$clean" "$peer")  (goal <= 0.75)"
    echo "ratio no-default / iced-x86:    $(ratio "$minimal" "$peer")  (goal <= 0.4)"
fi
