#!/usr/bin/env bash
# How `isa doc` scales: the reference of synthetic specs of growing size.
#
#   bash benches/doc.sh                    # builds target/release/isa, measures it
#   bash benches/doc.sh OLD_ISA NEW_ISA    # the given binaries, alternating per run
#
# The specs are `benches/diff.sh spec opcodes N`: N optypes of a 16-bit `Optype`, one
# opcode each with a guard and two register operands (so N + 1 definition pages, one
# group page, the types page, the opcode map and the index).
#
# Per spec and binary: bytes written (`du -sb` of the output directory), the largest
# file and the largest optype page, the wall time and peak memory of the run (`/usr/bin/time
# -v`; best of DOC_ROUNDS runs, default 3, a run over 10 s once). A fresh output
# directory each run. Sizes: DOC_OPCODES (space-separated, default 1024 2048 4096 8192).
# A run over DOC_TIMEOUT seconds (default 120) is stopped and shown as `>T`.
# DOC_OUT: where the outputs are written (default a temporary directory under $TMPDIR or
# /tmp); DOC_OUT=/dev/shm leaves the disk out: on ext4, creating thousands of files
# right after deleting a few thousand others (the run before: gigabytes of them before
# the fix) spends seconds in the kernel's inode allocator (`recently_deleted`), which
# is the file system's time, not `isa doc`'s.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [ $# -eq 0 ]; then
    (cd "$root" && cargo build --release -p isa-cli --quiet)
    set -- "$root/target/release/isa"
fi
rounds=${DOC_ROUNDS:-3}
limit=${DOC_TIMEOUT:-120}
dir=$(mktemp -d)
outs=$(mktemp -d -p "${DOC_OUT:-${TMPDIR:-/tmp}}")
trap 'rm -rf "$dir" "$outs"' EXIT

# One run: prints `seconds peak_kB bytes largest_file_bytes largest_optype_page_bytes`.
run() {
    local bin=$1 spec=$2 out="$outs/site" code=0
    rm -rf "$out"
    timeout "$limit" /usr/bin/time -v -o "$dir/time" "$bin" doc "$spec" -o "$out" \
        >"$dir/log" 2>&1 || code=$?
    if [ "$code" = 124 ]; then
        echo ">$limit"
        return
    elif [ "$code" != 0 ]; then
        echo "failed ($code): $bin doc $spec" >&2
        head -5 "$dir/log" >&2
        exit 1
    fi
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
        /Maximum resident set size/ { kb = $2 }
        END { printf "%.3f %d", s, kb }' "$dir/time"
    printf ' %s %s %s\n' "$(du -sb "$out" | cut -f1)" \
        "$(find "$out" -type f -printf '%s\n' | sort -n | tail -1)" \
        "$(find "$out" -name 'OP*.html' -printf '%s\n' | sort -n | tail -1)"
    rm -rf "$out"
}

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
kb() { awk -v b="$1" 'BEGIN { printf "%.0f KB", b / 1e3 }'; }

echo "| spec | binary | written | largest file | largest optype page | wall | peak memory |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for n in ${DOC_OPCODES:-1024 2048 4096 8192}; do
    spec="$dir/opcodes-$n.isa"
    bash "$root/benches/diff.sh" spec opcodes "$n" >"$spec"
    declare -A best=()
    for ((r = 0; r < rounds; r++)); do
        for bin in "$@"; do
            # A binary that timed out or took over 10 s is not run again.
            case ${best[$bin]:-} in ">"* | [1-9][0-9].* | [1-9][0-9][0-9]*) continue ;; esac
            line=$(run "$bin" "$spec")
            case $line in
            ">"*) best[$bin]=$line ;;
            *)
                # Keep the fastest run (sizes are the same every run).
                if [ -z "${best[$bin]:-}" ] ||
                    awk -v a="${line%% *}" -v b="${best[$bin]%% *}" 'BEGIN { exit !(a < b) }'; then
                    best[$bin]=$line
                fi
                ;;
            esac
        done
    done
    for bin in "$@"; do
        case ${best[$bin]} in
        ">"*) echo "| opcodes $n | $bin | | | | ${best[$bin]} s | |" ;;
        *)
            read -r s peak bytes big page <<<"${best[$bin]}"
            echo "| opcodes $n ($(wc -c <"$spec") bytes) | $bin | $(mb "$bytes") | $(kb "$big") | $(kb "$page") | $s s | $(awk -v k="$peak" 'BEGIN { printf "%.0f MB", k / 1024 }') |"
            ;;
        esac
    done
    unset best
done
