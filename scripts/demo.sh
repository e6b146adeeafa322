#!/usr/bin/env bash
# `make demo`: the main job on the bundled sample images, no network needed. Thumbnails and
# conversions go to a temporary folder, then `imagepipe info` describes every output.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(swift build -c release --show-bin-path)/imagepipe"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/imagepipe-demo.XXXXXX")"
CACHE="$OUT/cache"
step() { printf '\n== %s\n' "$*"; }

step "fetch: 256 px thumbnails of every sample (PNG, JPEG with EXIF rotation, WebP, animated GIF and WebP)"
"$BIN" fetch Examples/images/* -o "$OUT/thumbnails" --thumbnail 256x256 --cache-dir "$CACHE" --json

step "fetch again: the same requests are answered from the disk cache (cacheType disk)"
"$BIN" fetch Examples/images/* -o "$OUT/thumbnails" --thumbnail 256x256 --cache-dir "$CACHE" --json

step "fetch as WebP, covered to 200x200 with rounded corners"
"$BIN" fetch Examples/images/badge.png Examples/images/photo.jpg Examples/images/scene.webp -o "$OUT/styled" \
  --format webp --transform resize:200x200:cover --transform round:24 --no-cache --json

step "convert: animated GIF to animated WebP, one frame to PNG, a grayscale thumbnail"
"$BIN" convert Examples/images/spinner.gif "$OUT/spinner.webp" --json
"$BIN" convert Examples/images/spinner.webp "$OUT/spinner-frame3.png" --frame 3 --json
"$BIN" convert Examples/images/photo.jpg "$OUT/photo-gray.png" --thumbnail 160x160 --transform grayscale --json

step "info on every output"
"$BIN" info "$OUT"/thumbnails/* "$OUT"/styled/* "$OUT"/*.png "$OUT"/*.webp

step "cache"
"$BIN" cache stats --cache-dir "$CACHE"
printf '\nOutputs are in %s\n' "$OUT"
