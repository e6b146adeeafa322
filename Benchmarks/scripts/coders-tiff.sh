#!/usr/bin/env bash
# CodersTIFF full decodes and 256 px thumbnails against libtiff called from C (c/decode_tiff.c),
# images per CPU second, one thread each, on TIFFs made here with vips from the bench photo
# (Examples/images/photo.jpg enlarged to 4000 px): RGB LZW in strips, RGB Deflate in 256 px tiles,
# RGB JPEG in strips. Usage: Benchmarks/scripts/coders-tiff.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
vips resize Examples/images/photo.jpg "$dir/big.v" "$(vipsheader -f width Examples/images/photo.jpg | awk '{print 4000 / $1}')"
vips copy "$dir/big.v" "$dir/strips-lzw.tif[compression=lzw]"
vips copy "$dir/big.v" "$dir/tiles-deflate.tif[compression=deflate,tile,tile-width=256,tile-height=256]"
vips copy "$dir/big.v" "$dir/strips-jpeg.tif[compression=jpeg,Q=90]"
cc -O2 -o "$dir/decode_tiff" Benchmarks/c/decode_tiff.c $(pkg-config --cflags --libs libtiff-4)
swift build -c release --package-path Benchmarks --product coders-tiff-bench >/dev/null
bench=Benchmarks/.build/release/coders-tiff-bench
files=("$dir/strips-lzw.tif" "$dir/tiles-deflate.tif" "$dir/strips-jpeg.tif")
vipsheader "${files[@]}"
"$dir/decode_tiff" "$rounds" "${files[@]}"
"$bench" decode "$rounds" "${files[@]}"
"$bench" thumbnail "$rounds" "${files[@]}"
