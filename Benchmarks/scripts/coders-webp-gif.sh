#!/usr/bin/env bash
# Decode-all-frames throughput of CodersWebP/CodersGIF (release build) against a C program calling
# libwebp/giflib directly, per bench-corpus set. Same files, same rounds, one process each, one
# thread each.
#   CORPUS_DIR=/path/to/corpus Benchmarks/scripts/coders-webp-gif.sh [ROUNDS]
# Build the corpus first: CORPUS_DIR=... Benchmarks/scripts/make-corpus.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
CORPUS="${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/imagepipe-bench-corpus}"
ROUNDS="${1:-3}"
BASELINE=.build/decode_baseline
mkdir -p .build
cc -O2 -o "$BASELINE" Benchmarks/c/decode_webp_gif.c -lwebpdemux -lwebp -lgif
swift build -c release --package-path Benchmarks --product coders-webp-gif-bench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/coders-webp-gif-bench"
printf '%-22s %14s %14s %7s\n' set "swift img/s" "C img/s" ratio
for set in webp/lossy-640 webp/lossy-1920 webp/lossless-640 webp/lossless-1920 webp/orig gif/anim-480; do
  dir="$CORPUS/$set"
  [[ -d "$dir" ]] || continue
  files=("$dir"/*)
  # Alternate, best of two, so a neighbour's load spike does not decide the ratio.
  best_c=0 best_s=0
  for _ in 1 2; do
    c=$("$BASELINE" "$ROUNDS" "${files[@]}" | cut -d' ' -f1)
    s=$("$BENCH" "$ROUNDS" "${files[@]}" | cut -d' ' -f1)
    best_c=$(awk -v a="$best_c" -v b="$c" 'BEGIN{print (b>a)?b:a}')
    best_s=$(awk -v a="$best_s" -v b="$s" 'BEGIN{print (b>a)?b:a}')
  done
  printf '%-22s %14s %14s %7s\n' "$set" "$best_s" "$best_c" "$(awk -v s="$best_s" -v c="$best_c" 'BEGIN{printf "%.2f", s/c}')"
done
