#!/usr/bin/env bash
# Makes the TIFF fixtures in this folder and their reference pixels, from synthetic patterns:
# sources are written as Netpbm files by the Python below, turned into TIFFs with netpbm's
# pamtotiff/pnmtotiffcmyk and libtiff's tiffcp/tiffset (Debian: netpbm, libtiff-tools), and every
# TIFF is read back by netpbm's tifftopnm (libtiff's reader) into reference/<name>.pam, which
# CodersTIFFTests compare with within 1 level per channel. Run from anywhere; needs those tools
# and python3. Everything made here is in the public domain (CC0), like the script.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf reference && mkdir reference
rm -f ./*.tif

python3 - "$tmp" <<'PY'
import struct, sys
out = sys.argv[1]
W, H = 37, 23
def rgb(x, y, seed=0):
    return ((x * 7 + seed * 40) % 256, (y * 11 + seed * 90) % 256, ((x + y) * 5 + 30 * seed) % 256)
def write(name, magic, maxval, rows, depth=None, tupltype=None):
    with open(f"{out}/{name}", "wb") as f:
        if magic == "P7":
            f.write(f"P7\nWIDTH {W}\nHEIGHT {H}\nDEPTH {depth}\nMAXVAL {maxval}\nTUPLTYPE {tupltype}\nENDHDR\n".encode())
        else:
            f.write(f"{magic}\n{W} {H}\n{maxval}\n".encode())
        fmt = ">H" if maxval > 255 else ">B"
        for row in rows:
            for v in row:
                f.write(struct.pack(fmt, v))
rows = lambda f: [[c for x in range(W) for c in f(x, y)] for y in range(H)]
write("rgb.ppm", "P6", 255, rows(lambda x, y: rgb(x, y)))
write("rgb2.ppm", "P6", 255, rows(lambda x, y: rgb(x, y, 1)))
write("rgb16.ppm", "P6", 65535, rows(lambda x, y: tuple(min(v * 257 + x * 13 % 256, 65535) for v in rgb(x, y))))
write("gray.pgm", "P5", 255, rows(lambda x, y: ((x * 6 + y * 3) % 256,)))
write("gray16.pgm", "P5", 65535, rows(lambda x, y: ((x * 1700 + y * 900) % 65536,)))
write("gray4.pgm", "P5", 15, rows(lambda x, y: ((x + y) % 16,)))
write("bits.pbm.pam", "P7", 1, rows(lambda x, y: (1 if (x // 3 + y // 2) % 2 else 0,)), 1, "BLACKANDWHITE")
# At most 16 colours, so pamtotiff writes a palette.
write("palette.ppm", "P6", 255, rows(lambda x, y: [(255, 0, 0), (0, 128, 255), (20, 200, 20), (250, 250, 0), (90, 40, 160), (0, 0, 0), (255, 255, 255), (128, 128, 128)][(x // 5 + y // 4) % 8]))

# Uncompressed, one strip, little-endian: for the layouts no tool here writes (alpha with its
# ExtraSamples tag, premultiplied alpha, subsampled YCbCr). `extra` are (tag, type, count, bytes).
def tiff(path, photometric, spp, data, extra_samples=None, extra=()):
    entries = {256: (3, 1, W), 257: (3, 1, H), 259: (3, 1, 1), 262: (3, 1, photometric), 277: (3, 1, spp),
               278: (3, 1, H), 279: (4, 1, len(data)), 284: (3, 1, 1)}
    blobs = {258: (3, spp, struct.pack(f"<{spp}H", *([8] * spp)) if spp > 1 else None)}
    if spp == 1: entries[258] = (3, 1, 8)
    if extra_samples is not None:
        entries[338] = (3, 1, extra_samples)
    for tag, typ, count, blob in extra:
        blobs[tag] = (typ, count, blob)
    tags = sorted(set(entries) | {t for t, v in blobs.items() if v[2] is not None} | {273})
    ifd_size = 2 + 12 * len(tags) + 4
    offset = 8 + ifd_size
    payload = bytearray()
    placed = {}
    for tag in tags:
        if tag in blobs and blobs[tag][2] is not None and len(blobs[tag][2]) > 4:
            placed[tag] = offset + len(payload)
            payload += blobs[tag][2]
            if len(payload) % 2: payload += b"\0"
    data_offset = offset + len(payload)
    entries[273] = (4, 1, data_offset)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(tags)))
        for tag in tags:
            if tag in placed:
                typ, count, _ = blobs[tag]
                f.write(struct.pack("<HHII", tag, typ, count, placed[tag]))
            elif tag in blobs and blobs[tag][2] is not None:
                typ, count, blob = blobs[tag]
                f.write(struct.pack("<HHI", tag, typ, count) + blob.ljust(4, b"\0"))
            else:
                typ, count, value = entries[tag]
                f.write(struct.pack("<HHIHH", tag, typ, count, value, 0) if typ == 3 else struct.pack("<HHII", tag, typ, count, value))
        f.write(struct.pack("<I", 0))
        f.write(payload)
        f.write(data)

alpha = lambda x, y: (x * 255 // (W - 1)) if y % 5 else 0
tiff("rgba8-unassociated.tif", 2, 4, bytes(v for y in range(H) for x in range(W) for v in rgb(x, y) + (alpha(x, y),)), extra_samples=2)
tiff("rgba8-associated.tif", 2, 4, bytes(v for y in range(H) for x in range(W)
     for v in tuple((c * alpha(x, y) + 127) // 255 for c in rgb(x, y)) + (alpha(x, y),)), extra_samples=1)
tiff("graya8-unassociated.tif", 1, 2, bytes(v for y in range(H) for x in range(W) for v in ((x * 6) % 256, y * 255 // (H - 1))), extra_samples=2)

# YCbCr 4:2:0 (2x2): per block four Y, then Cb and Cr; the image padded to whole blocks.
def ycbcr_data():
    data = bytearray()
    for by in range((H + 1) // 2):
        for bx in range((W + 1) // 2):
            ys, cbs, crs = [], [], []
            for dy in range(2):
                for dx in range(2):
                    r, g, b = rgb(min(2 * bx + dx, W - 1), min(2 * by + dy, H - 1))
                    ys.append(round(0.299 * r + 0.587 * g + 0.114 * b))
                    cbs.append(-0.168736 * r - 0.331264 * g + 0.5 * b + 128)
                    crs.append(0.5 * r - 0.418688 * g - 0.081312 * b + 128)
            data += bytes(ys) + bytes([round(sum(cbs) / 4), round(sum(crs) / 4)])
    return bytes(data)
reference_black_white = struct.pack("<12I", 0, 1, 255, 1, 128, 1, 255, 1, 128, 1, 255, 1)
tiff("ycbcr-420-none.tif", 6, 3, ycbcr_data(), extra=[(530, 3, 2, struct.pack("<HH", 2, 2)), (532, 5, 6, reference_black_white)])
PY

# Every layout from the same pattern: compressions, tiles (16x16, so the right and bottom ones are
# cut by the image's edge), separate planes, 16-bit samples, gray, palette, CMYK, alpha.
pamtotiff -truecolor "$tmp/rgb.ppm" > rgb8-none.tif
for c in lzw zip packbits zstd; do tiffcp -c $c rgb8-none.tif rgb8-$c.tif; done
tiffcp -c lzw:2 rgb8-none.tif rgb8-lzw-predictor.tif
tiffcp -c jpeg:95 rgb8-none.tif rgb8-jpeg-ycbcr.tif
tiffcp -c jpeg:r:95 rgb8-none.tif rgb8-jpeg-rgb.tif
tiffcp -c webp rgb8-none.tif rgb8-webp.tif
tiffcp -r 5 -c lzw rgb8-none.tif rgb8-strips5-lzw.tif
tiffcp -t -w 16 -l 16 -c lzw rgb8-none.tif rgb8-tiled-lzw.tif
tiffcp -t -w 16 -l 16 -c zip:2 rgb8-none.tif rgb8-tiled-zip-predictor.tif
tiffcp -p separate -c zip rgb8-none.tif rgb8-separate-zip.tif
tiffcp -t -w 16 -l 16 -p separate rgb8-none.tif rgb8-tiled-separate.tif
tiffcp -t -w 16 -l 16 -c jpeg:90 rgb8-none.tif rgb8-tiled-jpeg.tif
pamtotiff -truecolor "$tmp/rgb16.ppm" > rgb16-none.tif
tiffcp -t -w 16 -l 16 -c zip rgb16-none.tif rgb16-tiled-zip.tif
pamtotiff -minisblack "$tmp/gray.pgm" > gray8-none.tif
tiffcp -t -w 16 -l 16 -c lzw:2 gray8-none.tif gray8-tiled-lzw-predictor.tif
pamtotiff -miniswhite -lzw "$tmp/gray.pgm" > gray8-miniswhite-lzw.tif
pamtotiff -minisblack "$tmp/gray16.pgm" > gray16-none.tif
pamtotiff -minisblack "$tmp/gray4.pgm" > gray4-none.tif
pamtotiff -g4 "$tmp/bits.pbm.pam" > gray1-g4.tif
pamtotiff -packbits "$tmp/bits.pbm.pam" > gray1-packbits.tif
tiffcp -t -w 16 -l 16 gray1-packbits.tif gray1-tiled.tif
pamtotiff -lzw "$tmp/palette.ppm" > palette-lzw.tif
pamtotiff -indexbits=4 "$tmp/palette.ppm" > palette4-none.tif
tiffcp -c lzw rgba8-unassociated.tif rgba8-lzw.tif
tiffcp -t -w 16 -l 16 -c zip:2 rgba8-unassociated.tif rgba8-tiled-zip-predictor.tif
tiffcp -t -w 16 -l 16 -p separate rgba8-unassociated.tif rgba8-tiled-separate.tif
pnmtotiffcmyk -none "$tmp/rgb.ppm" > cmyk8-none.tif
tiffcp -c lzw cmyk8-none.tif cmyk8-lzw.tif
# Orientation 6 (rotate 90° clockwise to show): stored pixels as rgb8-none.tif.
cp rgb8-none.tif orientation6.tif && tiffset -s 274 6 orientation6.tif
# Three pages (RGB, other RGB, gray), and a fourth marked as a reduced-resolution copy (not a page).
pamtotiff -truecolor "$tmp/rgb2.ppm" > "$tmp/page2.tif"
tiffcp rgb8-none.tif "$tmp/page2.tif" gray8-none.tif gray4-none.tif multipage.tif
tiffset -d 3 -s 254 1 multipage.tif

# Larger JPEG pages, for thumbnails libjpeg's DCT scaling decodes: YCbCr in strips of 16 rows
# and in 32x32 tiles (the right and bottom ones cut), gray in strips; smooth waves with a faint
# 8-pixel checkerboard, 200x136.
python3 - "$tmp" <<'PY'
import math, sys
W, H = 200, 136
with open(f"{sys.argv[1]}/waves.ppm", "wb") as f:
    f.write(f"P6\n{W} {H}\n255\n".encode())
    for y in range(H):
        for x in range(W):
            r = 128 + 100 * math.sin(x / 23) * math.cos(y / 31)
            g = 128 + 90 * math.sin((x + y) / 37)
            b = x * 200 // (W - 1) + (20 if (x // 8 + y // 8) % 2 else 0)
            f.write(bytes((int(r), int(g), int(b))))
PY
pamtotiff -truecolor "$tmp/waves.ppm" > "$tmp/waves.tif"
tiffcp -r 16 -c jpeg:90 "$tmp/waves.tif" rgb8-jpeg-ycbcr-200.tif
tiffcp -t -w 32 -l 32 -c jpeg:90 "$tmp/waves.tif" rgb8-tiled-jpeg-200.tif
ppmtopgm "$tmp/waves.ppm" | pamtotiff -minisblack > "$tmp/waves-gray.tif"
tiffcp -r 16 -c jpeg:90 "$tmp/waves-gray.tif" gray8-jpeg-200.tif

# References: tifftopnm's pixels in stored order (-orientraw; the orientation tag is checked
# apart), its alpha stacked on, named <name>.pam; where tifftopnm reads no such layout (YCbCr,
# gray with alpha), libtiff's tiff2rgba (its RGBA helper) first. RGB with alpha comes out with
# colour premultiplied by it (tifftopnm multiplies unassociated alpha in, and passes associated
# alpha's stored colour on), so those references are compared premultiplied and named
# <name>.premultiplied.pam; tiff2rgba leaves gray with alpha straight.
reference() {
  local f=$1 name=${1%.tif} suffix=pam
  local extra
  extra=$(tiffinfo "$f" 2>/dev/null | grep "Extra Samples" || true)
  local source=$f
  if ! tifftopnm -orientraw "$f" > /dev/null 2>&1; then
    if [ -n "$extra" ]; then tiff2rgba "$f" "$tmp/rgba.tif"; else tiff2rgba -n "$f" "$tmp/rgba.tif"; fi
    source=$tmp/rgba.tif
  fi
  if [ -n "$extra" ] && tiffinfo "$f" 2>/dev/null | grep -q "Photometric Interpretation: RGB color"; then suffix=premultiplied.pam; fi
  rm -f "$tmp/alpha.pgm"
  tifftopnm -orientraw -alphaout="$tmp/alpha.pgm" "$source" > "$tmp/color.pnm" 2>/dev/null
  if [ -n "$extra" ] && [ -s "$tmp/alpha.pgm" ]; then
    local depth
    depth=$(pamfile -machine "$tmp/color.pnm" | awk '{print $6}')
    pamstack -tupletype="$([ "$depth" = 3 ] && echo RGB_ALPHA || echo GRAYSCALE_ALPHA)" "$tmp/color.pnm" "$tmp/alpha.pgm" > "reference/$name.$suffix"
  else
    pamtopam < "$tmp/color.pnm" > "reference/$name.$suffix"
  fi
}
for f in *.tif; do reference "$f"; done
ls -l *.tif | awk '{s+=$5} END {print NR " TIFFs, " s " bytes"}'
