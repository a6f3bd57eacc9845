#!/usr/bin/env bash
# Opens the generated ISA reference in a real browser and checks it as a reader would
# meet it: from disk (file://), no network, headless Chromium.
#
#   bash scripts/browser-check.sh
#
# 1. installs Debian's chromium if it is missing (and a CJK font, so the authors'
#    Chinese prose renders as text, not boxes): needs root, as CI runs;
# 2. generates the reference with `isa doc` into $BROWSER_CHECK_DIR (default
#    target/browser-check/site);
# 3. for each checked page: takes a screenshot and asserts it is not blank (a decoded
#    PNG with enough non-background pixels and colours), dumps the DOM after the
#    scripts ran and asserts the page's script finished (`data-js="ok"` on <html>)
#    with no uncaught error in the console log;
# 4. opens the index with `?q=shfl` and asserts the filter hid the non-matching entries;
#    checks that a page's sidebar is built from the shared search-index.js (the page as
#    written carries only links to the index) and filters there too;
# 5. draws the divergence timeline of docs/examples/divergence.s (`isa run --timeline`),
#    screenshots it (not blank, as above) and checks the SVG Chromium loaded: well-formed,
#    no parser error, 32 lane rows in every band, a column per step.
#
# Screenshots stay in the output directory for people to look at. Every step that
# cannot run (a command that fails, a file that was not written) is a FAIL with a
# message: nothing is skipped silently.
# SKIP_BROWSER_CHECK=1 skips the whole check (say so when you do).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [ "${SKIP_BROWSER_CHECK:-}" = 1 ]; then
    echo "browser check skipped (SKIP_BROWSER_CHECK=1)"
    exit 0
fi

t0=$(date +%s)
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        echo "browser check: chromium is not installed and this is not root;" >&2
        echo "  install it (apt-get install chromium) or set SKIP_BROWSER_CHECK=1" >&2
        exit 1
    fi
    echo "installing chromium (Debian package)…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null
elif [ "$(id -u)" = 0 ] && command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei >/dev/null 2>&1 ||
        echo "note: no CJK font; Chinese text will show as boxes in the screenshots"
fi
if ! command -v dot >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing graphviz (Debian package), to render a control-flow graph…"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; }
fi
t1=$(date +%s)

out="${BROWSER_CHECK_DIR:-$root/target/browser-check}"
site="$out/site"
rm -rf "$site"
mkdir -p "$out"
g0=$(date +%s%N)
cargo run --quiet --bin isa -- doc isa-spec -o "$site" 2>"$out/doc.log" || {
    cat "$out/doc.log" >&2
    exit 1
}
g1=$(date +%s%N)

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
chrome() {
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

# A PNG is "not blank" when, decoded, at least 2% of its pixels differ from the most
# common colour and it has at least 16 colours.
not_blank() {
    python3 - "$1" <<'PY'
import struct, sys, zlib
from collections import Counter
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), f"unexpected PNG format {depth}/{ctype}"
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts = Counter()
i = 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 2 == 0:  # every other row is plenty for a blank test
        for x in range(0, stride, bpp * 2):
            counts[bytes(line[x:x + 3])] += 1
total = sum(counts.values())
top = counts.most_common(1)[0][1]
ink = 1 - top / total
print(f"{sys.argv[1].rsplit('/', 1)[-1]}: {w}x{h}, {len(counts)} colours, {ink:.1%} non-background")
sys.exit(0 if ink >= 0.02 and len(counts) >= 16 else 1)
PY
}

fail=0
b0=$(date +%s%N)
# page:window size (SHFL tall enough to show its first encoding diagram)
for spec in index.html:1280,1000 SHFL.html:1280,2400 BRA.html:1280,1000 opcode-map.html:1280,1600; do
    page="${spec%%:*}"
    url="file://$site/$page"
    name="${page%.html}"
    # Chromium writes the PNG itself: one from an earlier run must not pass for it.
    rm -f "$out/$name.png"
    chrome --window-size="${spec#*:}" --screenshot="$out/$name.png" "$url" >/dev/null 2>"$out/$name.shot.log" || true
    if [ ! -s "$out/$name.png" ]; then
        echo "FAIL $page: no screenshot" >&2
        cat "$out/$name.shot.log" >&2
        fail=1
        continue
    fi
    if ! not_blank "$out/$name.png"; then
        echo "FAIL $page: the screenshot is blank" >&2
        fail=1
    fi
    chrome --dump-dom "$url" >"$out/$name.dom.html" 2>"$out/$name.dom.log" || true
    if ! grep -q 'data-js="ok"' "$out/$name.dom.html"; then
        echo "FAIL $page: the page script did not finish (no data-js=\"ok\")" >&2
        fail=1
    fi
    if grep -E 'CONSOLE|Uncaught' "$out/$name.dom.log" "$out/$name.shot.log" | grep -iE 'uncaught|error'; then
        echo "FAIL $page: script errors in the console (above)" >&2
        fail=1
    fi
done

# A step of `isa` that fails is reported with its log (set -e would stop the script
# without a word: the log is in a file).
isa_step() {
    local what="$1" log="$2"
    shift 2
    if ! cargo run --quiet --bin isa -- "$@" 2>"$log"; then
        cat "$log" >&2
        echo "FAIL $what: isa $* failed" >&2
        return 1
    fi
}

# The opcode map covers every opcode of the spec (names from `isa json`): each is in
# at least one cell, and the page lists free cells.
if ! isa_step "opcode map" "$out/json.log" json isa-spec >"$out/model.json"; then
    fail=1
else
    python3 - "$out/opcode-map.dom.html" "$out/model.json" <<'PY' || fail=1
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
model = json.load(open(sys.argv[2], encoding="utf-8"))
want = {o["name"] for o in model["opcodes"]}
if not want:
    print("FAIL opcode map: `isa json` lists no opcode", file=sys.stderr)
    sys.exit(1)
cells = re.findall(r'<td class="used[^"]*"[^>]*data-opcodes="([^"]*)"', dom)
shown = {n for c in cells for n in c.split()}
free = len(re.findall(r'<td class="free"', dom))
print(f"opcode map: {len(cells)} cells used, {free} free cells or runs, {len(shown)}/{len(want)} opcodes")
missing = sorted(want - shown)
if missing or not free:
    print(f"FAIL opcode map: missing {missing[:5]}, free cells {free}", file=sys.stderr)
    sys.exit(1)
PY
fi

# A control-flow graph (`isa disasm --cfg`, rendered by Graphviz) is a picture with a
# box per basic block.
rm -f "$out/cfg.o" "$out/cfg.dot" "$out/cfg.svg" "$out/cfg.png"
if ! isa_step "cfg" "$out/cfg.log" asm isa-cli/tests/data/cfg.s -o "$out/cfg.o" ||
    ! isa_step "cfg" "$out/cfg.log" disasm --cfg "$out/cfg.o" >"$out/cfg.dot"; then
    fail=1
elif ! command -v dot >/dev/null 2>&1; then
    echo "FAIL cfg: Graphviz's dot is not installed (apt-get install graphviz)" >&2
    fail=1
elif dot -Tsvg "$out/cfg.dot" >"$out/cfg.svg" 2>"$out/dot.log"; then
    chrome --window-size=1400,900 --screenshot="$out/cfg.png" "file://$out/cfg.svg" >/dev/null 2>"$out/cfg.shot.log" || true
    # grep -c prints 0 (and exits 1) when no line matches.
    blocks=$(grep -c 'class="node"' "$out/cfg.svg" || true)
    if [ ! -s "$out/cfg.png" ]; then
        echo "FAIL cfg.svg: no screenshot" >&2
        cat "$out/cfg.shot.log" >&2
        fail=1
    elif ! not_blank "$out/cfg.png" || [ "${blocks:-0}" -lt 11 ]; then
        echo "FAIL cfg.svg: blank or too few nodes (${blocks:-0}, want 11 or more)" >&2
        fail=1
    fi
else
    cat "$out/dot.log" >&2
    echo "FAIL: dot could not render the control-flow graph" >&2
    fail=1
fi

# The filter: `?q=shfl` leaves SHFL's entry and hides (nearly) everything else.
chrome --dump-dom "file://$site/index.html?q=shfl" >"$out/filter.dom.html" 2>"$out/filter.log" || true
python3 - "$out/filter.dom.html" <<'PY' || fail=1
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
items = re.findall(r'<li data-k="([^"]*)"( hidden="")?', dom)
shown = [k for k, h in items if not h]
hidden = [k for k, h in items if h]
bad = [k for k in shown if "shfl" not in k]
print(f"filter ?q=shfl: {len(shown)} entries shown, {len(hidden)} hidden")
if not shown or bad or len(hidden) < len(items) // 2:
    print(f"FAIL filter: shown {shown[:5]}, wrongly shown {bad[:5]}", file=sys.stderr)
    sys.exit(1)
PY

# The sidebar comes from the shared script: SHFL.html as written carries no list (only
# links to the index, types and opcode map, what a reader without JavaScript gets);
# after its scripts ran, it lists every entry of search-index.js, SHFL marked as the
# current page. The filter works there too: `BRA.html?q=shfl` hides the sidebar's other
# entries.
chrome --dump-dom "file://$site/BRA.html?q=shfl" >"$out/filter-page.dom.html" 2>"$out/filter-page.log" || true
python3 - "$site" "$out/SHFL.dom.html" "$out/filter-page.dom.html" <<'PY' || fail=1
import json, re, sys
site = sys.argv[1]
raw = open(f"{site}/SHFL.html", encoding="utf-8").read()
js = open(f"{site}/search-index.js", encoding="utf-8").read()
nav = json.loads(js.split("window.ISA_NAV = ", 1)[1].rstrip().rstrip(";"))
want = [e[0] for _, entries in nav for e in entries]

def side(html):
    m = re.search(r'<nav class="side".*?</nav>', html, re.S)
    return m.group(0) if m else ""

ok = True
written = side(raw)
if "data-k" in written or 'href="index.html"' not in written:
    print("FAIL sidebar: SHFL.html as written copies the list or has no link to the index", file=sys.stderr)
    ok = False
built = side(open(sys.argv[2], encoding="utf-8").read())
links = re.findall(r'<li data-k="[^"]*"[^>]*><a href="([^"]*)"', built)
current = re.findall(r'<a href="([^"]*)" aria-current="page"', built)
print(f"sidebar: {len(links)} entries built from search-index.js ({len(want)} there), current {current}")
if links != want or current != ["SHFL.html"] or "navfallback" in built:
    print(f"FAIL sidebar: built {links[:5]}…, want {want[:5]}…", file=sys.stderr)
    ok = False
items = re.findall(r'<li data-k="([^"]*)"( hidden="")?', side(open(sys.argv[3], encoding="utf-8").read()))
shown = [k for k, h in items if not h]
print(f"filter BRA.html?q=shfl: {len(shown)} sidebar entries shown of {len(items)}")
if not shown or any("shfl" not in k for k in shown) or len(items) != len(want):
    print(f"FAIL filter on a page: shown {shown[:5]}", file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY

# The divergence timeline: an SVG file as `isa run --timeline` writes it. One left
# over from an earlier run must not stand in for it.
rm -f "$out/timeline.svg" "$out/timeline.png"
isa_step timeline "$out/timeline.log" run docs/examples/divergence.s \
    --timeline "$out/timeline.svg" >"$out/timeline.json" || fail=1
if [ ! -f "$out/timeline.svg" ] || [ ! -s "$out/timeline.svg" ]; then
    echo "FAIL timeline: isa run --timeline wrote no SVG (or an empty one) to $out/timeline.svg" >&2
    fail=1
else
    chrome --window-size=1100,1900 --screenshot="$out/timeline.png" "file://$out/timeline.svg" \
        >/dev/null 2>"$out/timeline.shot.log" || true
    if [ ! -s "$out/timeline.png" ]; then
        echo "FAIL timeline: no screenshot" >&2
        cat "$out/timeline.shot.log" >&2
        fail=1
    elif ! not_blank "$out/timeline.png"; then
        echo "FAIL timeline: the screenshot is blank" >&2
        fail=1
    fi
    chrome --dump-dom "file://$out/timeline.svg" >"$out/timeline.dom.svg" 2>"$out/timeline.dom.log" || true
    python3 - "$out/timeline.dom.svg" "$out/timeline.json" <<'PY' || fail=1
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    print(f"FAIL timeline: Chromium's DOM is not well-formed: {e}", file=sys.stderr)
    sys.exit(1)
steps = json.load(open(sys.argv[2]))["steps"]
if root.tag != ns + "svg" or any(el.tag.endswith("parsererror") for el in root.iter()):
    print("FAIL timeline: Chromium reports an XML error", file=sys.stderr)
    sys.exit(1)
bands = [g for g in root.iter(ns + "g") if g.get("class") == "band"]
rows = [[g for g in b if g.get("class") == "lane"] for b in bands]
cols = sum(1 for g in root.iter(ns + "g") if g.get("class") == "col")
print(f"timeline: {steps} steps, {len(bands)} bands, {[len(r) for r in rows]} lane rows, {cols} columns")
if not bands or any(len(r) != 32 for r in rows) or cols != steps:
    print("FAIL timeline: expected 32 lane rows per band and a column per step", file=sys.stderr)
    sys.exit(1)
PY
fi
b1=$(date +%s%N)

t2=$(date +%s)
echo "browser check: install $((t1 - t0)) s, isa doc $(((g1 - g0) / 1000000)) ms (incl. cargo), browser $(((b1 - b0) / 1000000)) ms; screenshots in $out"
if [ "$fail" != 0 ]; then
    echo "browser check FAILED" >&2
    exit 1
fi
echo "browser check passed ($((t2 - t0)) s)"
