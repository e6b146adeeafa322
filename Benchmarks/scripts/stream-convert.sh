#!/usr/bin/env bash
# Streamed full-size conversion (issue 40): peak RSS (`/usr/bin/time -f %M`) and wall seconds of
# `imagepipe convert` against `vips copy` on a 100-megapixel image, PNG→PNG (RGB and RGBA), PNG→JPEG
# and JPEG→JPEG; `--frame 0` runs imagepipe's whole-image path on the same still (what `convert`
# did before the rows streamed). The sources are a bench photo (mate-backgrounds' Elephants,
# 5640×3172) resized by vips to 10000×10000, made once into WORK_DIR.
#
#   Benchmarks/scripts/stream-convert.sh                                  # builds imagepipe (make release)
#   IMAGEPIPE=.build/debug/imagepipe Benchmarks/scripts/stream-convert.sh # an imagepipe already built
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK_DIR="${WORK_DIR:-/tmp/imagepipe-stream-bench}"
PHOTO="${PHOTO:-/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg}"

command -v vips >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q libvips-tools >/dev/null
[[ -f "$PHOTO" ]] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q mate-backgrounds >/dev/null
if [[ -z "${IMAGEPIPE:-}" ]]; then
  echo "building imagepipe (release)..." >&2
  make -C "$ROOT" --no-print-directory release >&2
  IMAGEPIPE="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/imagepipe"
fi
mkdir -p "$WORK_DIR"
cd "$WORK_DIR"
if [[ ! -f big.jpg ]]; then
  echo "making the 100 MP sources..." >&2
  vips resize "$PHOTO" big.v 1.7731 --vscale 3.1527
  vips copy big.v big-rgb.png
  vips bandjoin_const big.v big-rgba.v 255
  vips copy big-rgba.v big-rgba.png
  vips copy big.v "big.jpg[Q=90]"
  rm -f big.v big-rgba.v
fi

# Prints "peak MiB, wall s" for one command, its output removed afterwards.
measure() {
  local out="$1"; shift
  /usr/bin/time -f '%M %e' -o time.txt "$@" >/dev/null 2>&1 || echo "failed: $*" >&2
  rm -f "$out"
  awk '{ printf "%.0f MiB, %.1f s", $1 / 1024, $2 }' time.txt
}

printf '| conversion | vips copy | imagepipe, whole image (`--frame 0`) | imagepipe, streamed |\n|---|---|---|---|\n'
for pair in big-rgba.png:png big-rgb.png:png big-rgb.png:jpg big.jpg:jpg; do
  src="${pair%%:*}" ext="${pair##*:}"
  vips_figure=$(measure "o.$ext" vips copy "$src" "o.$ext")
  whole_figure=$(measure "o.$ext" "$IMAGEPIPE" convert "$src" "o.$ext" --frame 0)
  streamed_figure=$(measure "o.$ext" "$IMAGEPIPE" convert "$src" "o.$ext")
  printf '| %s → %s | %s | %s | %s |\n' "$src" "$ext" "$vips_figure" "$whole_figure" "$streamed_figure"
done
