#!/usr/bin/env bash
# Streamed full-size conversion (issue 40): peak RSS (`/usr/bin/time -f %M`) and wall seconds of
# `imagepipe convert` against `vips copy` on a 100-megapixel image, PNG→PNG (RGB and RGBA), PNG→JPEG
# and JPEG→JPEG, against the whole-image path: BEFORE (an imagepipe built before the rows
# streamed) when given, else IMAGEPIPE's own with `--frame 0` (which never streams). The sources
# are a bench photo (mate-backgrounds' Elephants, 5640×3172) resized by vips to 10000×10000, a
# JPEG of it at Q90, and that JPEG as PNG (RGB, and RGBA with an opaque alpha) written with vips'
# adaptive PNG filters (its default, no filter, makes the RGBA file 300 MB, over the file loader's
# 256 MiB), made once into WORK_DIR. ROUNDS (default 1) runs of each, alternated (vips, before,
# streamed, vips, …), so load from elsewhere falls on all three alike: each cell gives the largest
# peak and the median wall time, with the fastest and slowest run when there are several, and
# says how many runs failed and why. CONVERSIONS picks some of the four (`big-rgba.png:png …`).
#
#   Benchmarks/scripts/stream-convert.sh                                  # builds imagepipe (make release)
#   IMAGEPIPE=.build/release/imagepipe BEFORE=/tmp/imagepipe-main ROUNDS=3 Benchmarks/scripts/stream-convert.sh
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
  vips copy big.v "big.jpg[Q=90]"
  vips copy big.jpg "big-rgb.png[filter=all]"
  vips bandjoin_const big.jpg big-rgba.v 255
  vips copy big-rgba.v "big-rgba.png[filter=all]"
  rm -f big.v big-rgba.v
fi

ROUNDS="${ROUNDS:-1}"

# Appends "peak KiB wall s" of one command to the file $1, its output ($2) removed afterwards; a
# run that fails appends "failed" and its last line of stderr.
measure() {
  local record="$1" out="$2"; shift 2
  if ! /usr/bin/time -f '%M %e' -o time.txt "$@" >/dev/null 2>stderr.txt; then
    echo "failed $(grep -v '^Command exited' stderr.txt | tail -1)" >>"$record"
  else
    cat time.txt >>"$record"
  fi
  rm -f "$out"
}

# "peak MiB, median wall s (fastest–slowest)" of the runs recorded in $1 that succeeded, and how
# many failed with the first failure's message.
summary() {
  grep -v '^failed' "$1" | sort -n -k2 | awk '{ peak = $1 > peak ? $1 : peak; wall[NR] = $2 }
    END {
      if (NR == 0) exit
      median = NR % 2 ? wall[(NR + 1) / 2] : (wall[NR / 2] + wall[NR / 2 + 1]) / 2
      printf "%.0f MiB, %.1f s", peak / 1024, median
      if (NR > 1) printf " (%.1f–%.1f)", wall[1], wall[NR]
    }'
  local failures
  failures=$(grep -c '^failed' "$1" || true)
  if [[ "$failures" -gt 0 ]]; then printf '; %s failed (%s)' "$failures" "$(grep -m1 '^failed' "$1" | cut -c8-)"; fi
}

if [[ -n "${BEFORE:-}" ]]; then before=("$BEFORE" convert) before_name="before ($BEFORE)"; else before=("$IMAGEPIPE" convert --frame 0) before_name='whole image (`--frame 0`)'; fi
printf '| conversion | vips copy | imagepipe, %s | imagepipe, streamed |\n|---|---|---|---|\n' "$before_name"
for pair in ${CONVERSIONS:-big-rgba.png:png big-rgb.png:png big-rgb.png:jpg big.jpg:jpg}; do
  src="${pair%%:*}" ext="${pair##*:}"
  rm -f vips.txt before.txt streamed.txt
  for ((round = 0; round < ROUNDS; round++)); do
    measure vips.txt "o.$ext" vips copy "$src" "o.$ext"
    measure before.txt "o.$ext" "${before[@]}" "$src" "o.$ext"
    measure streamed.txt "o.$ext" "$IMAGEPIPE" convert "$src" "o.$ext"
  done
  printf '| %s → %s | %s | %s | %s |\n' "$src" "$ext" "$(summary vips.txt)" "$(summary before.txt)" "$(summary streamed.txt)"
done
