#!/usr/bin/env bash
# CodersTIFF (release build) on TIFFs made here with vips from the bench photo
# (Examples/images/photo.jpg enlarged to 4000 px): RGB LZW in strips, RGB Deflate in 256 px tiles,
# RGB JPEG in strips. Side by side in one run, one thread each, images per CPU second:
#   - full decodes against libtiff called from C (c/decode_tiff.c), its tiles left in tile order
#     and, with --assemble, copied into an image of rows as CodersTIFF must;
#   - 256 px thumbnails decoded (not encoded);
#   - 256 px JPEG thumbnails (quality 75) against vipsthumbnail (VIPS_CONCURRENCY=1), best of two.
# With BEFORE=path/to/an/older/coders-tiff-bench, that build runs beside this one (alternated) in
# the decode and thumbnail rows, for a before/after in one run.
# Usage: [BEFORE=…] Benchmarks/scripts/coders-tiff.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
vips resize Examples/images/photo.jpg "$dir/big.v" "$(vipsheader -f width Examples/images/photo.jpg | awk '{print 4000 / $1}')"
vips copy "$dir/big.v" "$dir/strips-lzw.tif[compression=lzw]"
vips copy "$dir/big.v" "$dir/tiles-deflate.tif[compression=deflate,tile,tile-width=256,tile-height=256]"
vips copy "$dir/big.v" "$dir/strips-jpeg.tif[compression=jpeg,Q=90]"
rm "$dir/big.v"
cc -O2 -o "$dir/decode_tiff" Benchmarks/c/decode_tiff.c $(pkg-config --cflags --libs libtiff-4)
swift build -c release --package-path Benchmarks --product coders-tiff-bench >/dev/null
bench=Benchmarks/.build/release/coders-tiff-bench
before=${BEFORE:-}
files=("$dir/strips-lzw.tif" "$dir/tiles-deflate.tif" "$dir/strips-jpeg.tif")
vipsheader "${files[@]}"
"$dir/decode_tiff" "$rounds" "${files[@]}"
"$dir/decode_tiff" --assemble "$rounds" "$dir/tiles-deflate.tif"
[[ -z "$before" ]] || "$before" decode "$rounds" "${files[@]}" | sed 's/^/before: /'
"$bench" decode "$rounds" "${files[@]}"
[[ -z "$before" ]] || "$before" thumbnail "$rounds" "${files[@]}" | sed 's/^/before: /'
"$bench" thumbnail "$rounds" "${files[@]}"
mkdir -p "$dir/out-vips" "$dir/out-ours" "$dir/out-before"
best() { awk -v a="$1" -v b="$2" 'BEGIN{print (b>a)?b:a}'; }
ratio() { awk -v s="$1" -v v="$2" 'BEGIN{printf "%.2f", s/v}'; }
printf '%-20s %14s %14s %7s' "256px JPEG thumbnail" "swift img/s" "vips img/s" ratio
[[ -z "$before" ]] && echo || printf ' %14s %7s\n' "before img/s" ratio
for file in "${files[@]}"; do
  # Each file four times, so a process start is a small part; alternated, best of two.
  set4=("$file" "$file" "$file" "$file")
  best_v=0 best_s=0 best_b=0
  for _ in 1 2; do
    cpu=$(VIPS_CONCURRENCY=1 python3 Benchmarks/python/measure.py vipsthumbnail "${set4[@]}" -s 256 -o "$dir/out-vips/%s.jpg" | awk '{print $4}')
    best_v=$(best "$best_v" "$(awk -v c="$cpu" 'BEGIN{printf "%.2f", 4/c}')")
    if [[ -n "$before" ]]; then
      cpu=$(python3 Benchmarks/python/measure.py "$before" thumbnail-jpeg "$dir/out-before" "${set4[@]}" | awk '{print $4}')
      best_b=$(best "$best_b" "$(awk -v c="$cpu" 'BEGIN{printf "%.2f", 4/c}')")
    fi
    cpu=$(python3 Benchmarks/python/measure.py "$bench" thumbnail-jpeg "$dir/out-ours" "${set4[@]}" | awk '{print $4}')
    best_s=$(best "$best_s" "$(awk -v c="$cpu" 'BEGIN{printf "%.2f", 4/c}')")
  done
  printf '%-20s %14s %14s %7s' "$(basename "$file")" "$best_s" "$best_v" "$(ratio "$best_s" "$best_v")"
  [[ -z "$before" ]] && echo || printf ' %14s %7s\n' "$best_b" "$(ratio "$best_b" "$best_v")"
done
