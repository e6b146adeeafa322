#!/usr/bin/env bash
# CodersAVIF / CodersHEIF (release build) on the same files as
#   - a C program calling libavif / libheif directly (Benchmarks/c/decode_avif_heif.c): full
#     decodes, images per CPU second, one thread each;
#   - vipsthumbnail (libvips, which reads both through libheif): 256 px JPEG thumbnails, images
#     per CPU second, one thread each (VIPS_CONCURRENCY=1).
# The files are made here from JPEG photos: CORPUS_DIR's jpeg/1920 set when it exists, else the
# test corpus's 1800x1200 orientation photos. AVIF: avifenc -s 8 (4:2:0, 8 bits). HEIC: heif-enc
# -q 50 with a 320 px thumbnail item, as phones write them (vipsthumbnail uses it too).
#   Benchmarks/scripts/coders-avif-heif.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROUNDS="${1:-3}"
CORPUS="${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/imagepipe-bench-corpus}"
if [[ -d "$CORPUS/jpeg/1920" ]]; then sources=("$CORPUS"/jpeg/1920/*.jpg); else sources=(Tests/Fixtures/corpus/jpeg/exif-orientation-examples/*.jpg); fi
WORK=.build/bench-avif-heif
mkdir -p "$WORK/avif" "$WORK/heic" "$WORK/out-vips" "$WORK/out-ours"
for source in "${sources[@]}"; do
  name=$(basename "${source%.*}")
  [[ -f "$WORK/avif/$name.avif" ]] || avifenc -s 8 -j 1 -y 420 "$source" "$WORK/avif/$name.avif" >/dev/null
  [[ -f "$WORK/heic/$name.heic" ]] || heif-enc -q 50 -t 320 "$source" -o "$WORK/heic/$name.heic" >/dev/null
done
BASELINE=.build/decode_avif_heif
cc -O2 -o "$BASELINE" Benchmarks/c/decode_avif_heif.c -lavif -lheif
swift build -c release --package-path Benchmarks --product coders-avif-heif-bench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/coders-avif-heif-bench"
best() { awk -v a="$1" -v b="$2" 'BEGIN{print (b>a)?b:a}'; }
ratio() { awk -v s="$1" -v c="$2" 'BEGIN{printf "%.2f", s/c}'; }
echo "${#sources[@]} files per set, from $(dirname "${sources[0]}")"
printf '%-16s %14s %14s %7s\n' "decode" "swift img/s" "C img/s" ratio
for set in avif heic; do
  files=("$WORK/$set"/*)
  # Alternate, best of two, so a neighbour's load spike does not decide the ratio.
  best_c=0 best_s=0
  for _ in 1 2; do
    best_c=$(best "$best_c" "$("$BASELINE" "$ROUNDS" "${files[@]}" | cut -d' ' -f1)")
    best_s=$(best "$best_s" "$("$BENCH" decode "$ROUNDS" "${files[@]}" | cut -d' ' -f1)")
  done
  printf '%-16s %14s %14s %7s\n' "$set" "$best_s" "$best_c" "$(ratio "$best_s" "$best_c")"
done
printf '%-16s %14s %14s %7s\n' "256px thumbnail" "swift img/s" "vips img/s" ratio
for set in avif heic; do
  files=("$WORK/$set"/*)
  best_v=0 best_s=0
  for _ in 1 2; do
    cpu=$(VIPS_CONCURRENCY=1 python3 Benchmarks/python/measure.py vipsthumbnail "${files[@]}" -s 256 -o "$PWD/$WORK/out-vips/%s.jpg" | awk '{print $4}')
    best_v=$(best "$best_v" "$(awk -v n="${#files[@]}" -v c="$cpu" 'BEGIN{printf "%.2f", n/c}')")
    cpu=$(python3 Benchmarks/python/measure.py "$BENCH" thumbnail "$WORK/out-ours" "${files[@]}" | awk '{print $4}')
    best_s=$(best "$best_s" "$(awk -v n="${#files[@]}" -v c="$cpu" 'BEGIN{printf "%.2f", n/c}')")
  done
  printf '%-16s %14s %14s %7s\n' "$set" "$best_s" "$best_v" "$(ratio "$best_s" "$best_v")"
done
