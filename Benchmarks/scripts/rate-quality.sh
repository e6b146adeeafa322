#!/usr/bin/env bash
# Rate against quality (issue 40): for JPEG, WebP, AVIF and JPEG XL, the bench corpus' photos encoded over a
# quality sweep by `imagepipe convert` and by `vips copy in out[Q=…]` (vips' other defaults), each
# output scored against its source with SSIMULACRA2 (PyPI's `ssimulacra2` 0.3, a port of libjxl's
# tool, in a venv of its own); prints the BD-rate (our bytes / vips' at equal score) and the CPU
# seconds per encode of each, side by side in one run, and what each format's default quality
# (the service's) gives (Benchmarks/python/rate_quality.py). With REPORT (default
# Benchmarks/rate-quality-RESULTS.md; REPORT= for none) writes the report there, with this command,
# and a plot per format beside it (rate-quality-FORMAT.png, matplotlib in the same venv). Every
# measurement is appended to DATA (default Benchmarks/rate-quality-data.tsv, written afresh unless
# REUSE=1; DATA= for none); with REUSE=1 the points already there are taken as they are, so a run
# with other DEFAULTS, or one stopped half-way, measures only what is missing.
#
#   Benchmarks/scripts/rate-quality.sh                     # PHOTOS=4 QUALITIES=30,40,50,60,70,80,90
#   FORMATS=avif PHOTOS=2 REPORT= Benchmarks/scripts/rate-quality.sh
#   IMAGEPIPE=.build/release/imagepipe Benchmarks/scripts/rate-quality.sh   # an imagepipe already built
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CORPUS_DIR="${CORPUS_DIR:-/tmp/imagepipe-bench-corpus}"
PHOTOS="${PHOTOS:-4}"
QUALITIES="${QUALITIES:-30,40,50,60,70,80,90}"
FORMATS="${FORMATS:-jpeg,webp,avif,jxl}"
DEFAULTS="${DEFAULTS:-jpeg=65,webp=82,avif=63,jxl=72}"
REPORT="${REPORT-$ROOT/Benchmarks/rate-quality-RESULTS.md}"
DATA="${DATA-$ROOT/Benchmarks/rate-quality-data.tsv}"
REUSE="${REUSE:-0}"
VENV="${VENV:-/tmp/imagepipe-rate-quality-venv}"

command -v vips >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q libvips-tools >/dev/null
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q ssimulacra2==0.3.0 >&2
fi
if [[ -n "$REPORT" ]] && ! "$VENV/bin/python" -c 'import matplotlib' 2>/dev/null; then
  "$VENV/bin/pip" install -q 'matplotlib>=3.6,<4' >&2
fi
bash "$ROOT/Benchmarks/scripts/make-corpus.sh" >&2
if [[ -z "${IMAGEPIPE:-}" ]]; then
  echo "building imagepipe (release)..." >&2
  make -C "$ROOT" --no-print-directory release >&2
  IMAGEPIPE="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/imagepipe"
fi
mapfile -t photos < <(ls "$CORPUS_DIR"/jpeg/1920/*.jpg | head -n "$PHOTOS")
command_line="$([[ "$REUSE" == 1 ]] && echo "REUSE=1 ")PHOTOS=$PHOTOS QUALITIES=$QUALITIES FORMATS=$FORMATS DEFAULTS=$DEFAULTS Benchmarks/scripts/rate-quality.sh"
if [[ -n "$DATA" && "$REUSE" != 1 ]]; then rm -f "$DATA"; fi
# What the figures decided, written by hand, goes into the report after the tables.
notes=()
if [[ -n "$REPORT" && -f "$ROOT/Benchmarks/rate-quality-NOTES.md" ]]; then notes=(--notes "$ROOT/Benchmarks/rate-quality-NOTES.md"); fi
"$VENV/bin/python" "$ROOT/Benchmarks/python/rate_quality.py" --imagepipe "$IMAGEPIPE" \
  --qualities "$QUALITIES" --formats "$FORMATS" --defaults "$DEFAULTS" \
  ${DATA:+--data "$DATA"} $([[ "$REUSE" == 1 ]] && echo --reuse) \
  ${REPORT:+--report "$REPORT" --command "$command_line"} "${notes[@]}" "${photos[@]}"
