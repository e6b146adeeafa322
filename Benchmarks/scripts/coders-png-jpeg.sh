#!/usr/bin/env bash
# CodersPNG and CodersJPEG against a small C program calling libpng and libjpeg directly
# (Benchmarks/c/coders_png_jpeg.c), in one run, on the bench corpus:
#   * full decodes per second, every PNG and JPEG set;
#   * 256x256-fit thumbnails per second (C: libjpeg DCT scaling by libvips' rule + a triangle
#     resample; ImagePipe: the same DCT scaling + its Lanczos-3 resampler; PNG: full decode +
#     resample in C, row-by-row box shrink + resample in ImagePipe);
#   * peak memory of a thumbnail of a 10,000 x 10,000 PNG against its full decode.
#
#   Benchmarks/scripts/coders-png-jpeg.sh [SECONDS_PER_RUN] [RUNS]      (defaults 1 and 5)
#
# Rates are images per CPU-second of the measuring process (CLOCK_PROCESS_CPUTIME_ID), so time a
# shared machine spends on other work does not count. C and Swift run alternately RUNS times
# each and each keeps its best run.
# CORPUS_DIR picks the corpus (built with Benchmarks/scripts/make-corpus.sh when missing or stale).
# Ratios are ImagePipe / C: above 1 means ImagePipe is faster.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECONDS_PER="${1:-1}"
RUNS="${2:-5}"
export CORPUS_DIR="${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/imagepipe-bench-corpus}"
MAKE_CORPUS="$ROOT/Benchmarks/scripts/make-corpus.sh"
BENCH="$ROOT/Benchmarks"
OUT="$ROOT/.build/bench-coders-png-jpeg"
mkdir -p "$OUT"

bash "$MAKE_CORPUS" >&2

echo "building the C program and the Swift benchmark (release)..." >&2
# shellcheck disable=SC2046
cc -O2 -o "$OUT/coders_bench_c" "$BENCH/c/coders_png_jpeg.c" $(pkg-config --cflags --libs libpng libjpeg)
swift build -c release --package-path "$BENCH" --product coders-png-jpeg-bench >&2
SWIFT_BENCH="$(swift build -c release --package-path "$BENCH" --show-bin-path)/coders-png-jpeg-bench"
C_BENCH="$OUT/coders_bench_c"


measure() { # mode format set [size]
  local mode=$1 format=$2 set=$3 files c s
  files=("$CORPUS_DIR/$set"/*)
  local args=("$mode" "$format")
  [[ $mode == thumb ]] && args+=(256)
  args+=("$SECONDS_PER" "${files[@]}")
  c=0 s=0
  for ((run = 0; run < RUNS; run++)); do
    c="$(awk -v a="$c" -v b="$("$C_BENCH" "${args[@]}")" 'BEGIN { print (b > a ? b : a) }')"
    s="$(awk -v a="$s" -v b="$("$SWIFT_BENCH" "${args[@]}")" 'BEGIN { print (b > a ? b : a) }')"
  done
  printf '%-8s %-16s %10s %10s %8s\n' "$mode" "$set" "$c" "$s" "$(awk -v c="$c" -v s="$s" 'BEGIN { printf "%.3f", s / c }')"
}

printf '%-8s %-16s %10s %10s %8s\n' mode set "C img/cpu-s" "ImagePipe" ratio
for set in jpeg/orig jpeg/1920 jpeg/1920-prog jpeg/640; do measure decode jpeg "$set"; done
for set in png/rgb-1920 png/rgba-1920 png/rgb-640 png/rgba-640; do measure decode png "$set"; done
for set in jpeg/orig jpeg/1920 jpeg/1920-prog jpeg/640; do measure thumb jpeg "$set"; done
for set in png/rgb-1920 png/rgba-1920; do measure thumb png "$set"; done

BIG="$OUT/big-10000x10000.png"
[[ -f $BIG ]] || "$C_BENCH" makepng 10000 10000 "$BIG"
echo
echo "peak memory, 10000x10000 RGB PNG ($(du -h "$BIG" | cut -f1)):"
full="$("$SWIFT_BENCH" peak full 256 "$BIG")"
thumb="$("$SWIFT_BENCH" peak thumb 256 "$BIG")"
c_full="$("$C_BENCH" peak full 256 "$BIG")"
echo "  ImagePipe full decode:  $full"
echo "  ImagePipe thumbnail:    $thumb"
echo "  C full decode:          $c_full"
awk -v f="${full##* }" -v t="${thumb##* }" 'BEGIN { printf "  thumbnail peak / full decode peak = %.1f%%\n", 100 * t / f }'
