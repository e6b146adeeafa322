#!/usr/bin/env bash
# Makes the BMP and ICO fixtures in this folder and their reference pixels from synthetic
# patterns: sources are Netpbm files written by the Python below; netpbm's ppmtobmp writes the
# BMPs (1, 4, 8 and 24 bits, Windows and OS/2 headers) and pamtowinicon the icons (DIB entries
# below 64 pixels, a PNG entry from 64 on). Every file is read back by netpbm's own readers
# (bmptopnm, winicontopam -allimages) into reference/<name>.pam, which CodersBMPTests compare with.
# The depths and layouts ppmtobmp cannot write (16 and 32 bits, bit masks, RLE, top-down, V5
# alpha) are made by the tests themselves. Needs netpbm and python3; everything made here is in
# the public domain (CC0), like the script.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf reference && mkdir reference
rm -f ./*.bmp ./*.ico

python3 - "$tmp" <<'PY'
import struct, sys
out = sys.argv[1]
def rgb(x, y, seed=0):
    return ((x * 7 + seed * 40) % 256, (y * 11 + seed * 90) % 256, ((x + y) * 5 + 30 * seed) % 256)
def pam(name, w, h, depth, tupltype, pixel):
    with open(f"{out}/{name}", "wb") as f:
        f.write(f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH {depth}\nMAXVAL 255\nTUPLTYPE {tupltype}\nENDHDR\n".encode())
        f.write(bytes(v for y in range(h) for x in range(w) for v in pixel(x, y)))
W, H = 37, 23
pam("rgb.pam", W, H, 3, "RGB", rgb)
colors = [(255, 0, 0), (0, 128, 255), (20, 200, 20), (250, 250, 0), (90, 40, 160), (0, 0, 0), (255, 255, 255), (128, 128, 128)]
pam("palette8.pam", W, H, 3, "RGB", lambda x, y: colors[(x // 5 + y // 4) % 8])
# 200 colours, for an 8-bit palette.
pam("palette200.pam", W, H, 3, "RGB", lambda x, y: ((x * 23 + y * 37) % 200, (x * 23 + y * 37) % 200 * 3 % 256, 90))
pam("bits.pam", W, H, 3, "RGB", lambda x, y: (255, 255, 255) if (x // 3 + y // 2) % 2 else (0, 0, 0))
for size in (16, 32, 48, 64):
    pam(f"icon{size}.pam", size, size, 4, "RGB_ALPHA",
        lambda x, y, s=size: rgb(x * 37 // s, y * 23 // s) + ((255 if (x + y) % 7 else 0) if x < s - 2 else 128,))
PY

ppmtobmp -bpp=24 "$tmp/rgb.pam" > rgb24.bmp
ppmtobmp -os2 -bpp=24 "$tmp/rgb.pam" > rgb24-os2.bmp
ppmtobmp -bpp=8 "$tmp/palette200.pam" > palette8.bmp
ppmtobmp -bpp=4 "$tmp/palette8.pam" > palette4.bmp
ppmtobmp -os2 -bpp=4 "$tmp/palette8.pam" > palette4-os2.bmp
ppmtobmp -bpp=1 "$tmp/bits.pam" > mono1.bmp
# Three DIB entries (16, 32, 48) and one PNG entry (64); the largest is the PNG.
cat "$tmp/icon16.pam" "$tmp/icon32.pam" "$tmp/icon48.pam" "$tmp/icon64.pam" | pamtowinicon -pngthreshold=64 > icons-dib-png.ico
cat "$tmp/icon16.pam" "$tmp/icon48.pam" | pamtowinicon > icons-dib.ico

for f in *.bmp; do bmptopnm "$f" 2>/dev/null | pamtopam > "reference/${f%.bmp}.pam"; done
for f in *.ico; do winicontopam -allimages "$f" 2>/dev/null > "reference/${f%.ico}.pam"; done
ls -l ./*.bmp ./*.ico | awk '{s+=$5} END {print NR " files, " s " bytes"}'
