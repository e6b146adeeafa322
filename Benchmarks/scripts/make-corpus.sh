#!/usr/bin/env bash
# Build the benchmark corpus from images shipped in Debian packages.
#
#   Benchmarks/scripts/make-corpus.sh          # build into $CORPUS_DIR (default ~/.cache/imagepipe-bench-corpus)
#   FORCE=1 Benchmarks/scripts/make-corpus.sh  # rebuild from scratch
#
# Every bench script calls this first; it returns at once when the corpus is up to date.
#
# Sources (installed with apt-get if missing):
#   * 12 real photographs: /usr/share/backgrounds/mate/nature/*.jpg (package mate-backgrounds;
#     these are the classic GNOME 2 photo backgrounds, 1280..2560 px, as shipped).
#   * 4 large renders: /usr/share/backgrounds/gnome/*.webp (package gnome-backgrounds 43 ships
#     only 4096x4096 3D renders, no photographs, so they are the "large original" class).
# Output layout (one directory per benchmark "set"; every tool is timed per set):
#   jpeg/orig        12 photo JPEGs as shipped + 4 renders re-encoded q85 at 4096x4096
#   jpeg/1920        all 16 fitted into 1920x1920 (never upscaled), baseline q85
#   jpeg/1920-prog   same, progressive q85
#   jpeg/640         fitted into 640x640, q85
#   webp/orig        the 4 gnome renders as shipped (lossy, 4096x4096)
#   webp/lossy-1920 webp/lossy-640        all 16, cwebp -q 80 (RGB)
#   Lossless sets hold photos only (to keep the corpus under ~150 MB): the *-1920 ones the first
#   8 photos in alphabetical order, the *-640 ones all 12.
#   png/rgb-1920 png/rgba-1920 png/rgb-640 png/rgba-640
#                    RGB and RGBA (alpha = radial gradient, opaque centre) PNG, zlib level 6,
#                    adaptive row filters (libpng default heuristics)
#   webp/lossless-1920 webp/lossless-640  cwebp -lossless of the RGBA PNG (alpha kept)
#   gif/anim-480     4 animated GIFs, 30 frames 480x360 each, 40 ms/frame, loop forever:
#                    pan-*  : a crop window panning across a photo (every pixel changes),
#                    sprite-*: a still crop with a moving 160 px crop on top, optimised with
#                              gifsicle -O3 (sub-rectangles + transparency, needs compositing)
# Images are derived from Debian package files, under those packages' own licences (see
# /usr/share/doc/mate-backgrounds/copyright and /usr/share/doc/gnome-backgrounds/copyright): do not
# commit them; this script regenerates them on the machine that measures.
set -euo pipefail

OUT="${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/imagepipe-bench-corpus}"
STAMP="$OUT/.complete"
SELF_HASH="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"

if [[ -z "${FORCE:-}" && -f "$STAMP" && "$(cat "$STAMP")" == "$SELF_HASH" ]]; then
  echo "corpus up to date: $OUT ($(du -sh "$OUT" | cut -f1))"
  exit 0
fi

need_pkgs=()
command -v vips >/dev/null || need_pkgs+=(libvips-tools)
command -v convert >/dev/null && convert -version 2>/dev/null | grep -q ImageMagick || need_pkgs+=(imagemagick)
command -v cwebp >/dev/null || need_pkgs+=(webp)
command -v gifsicle >/dev/null || need_pkgs+=(gifsicle)
[[ -d /usr/share/backgrounds/gnome ]] || need_pkgs+=(gnome-backgrounds)
[[ -d /usr/share/backgrounds/mate/nature ]] || need_pkgs+=(mate-backgrounds)
if ((${#need_pkgs[@]})); then
  echo "installing: ${need_pkgs[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >/dev/null
fi

PHOTOS=(Aqua Blinds Dune FreshFlower Garden GreenMeadow LadyBird RainDrops Storm TwoWings Wood YellowFlower)
RENDERS=(adwaita-l pixels-l truchet-d licorice-l)

rm -rf "$OUT"
TMP="$OUT/.work"
mkdir -p "$TMP"
for d in jpeg/orig jpeg/1920 jpeg/1920-prog jpeg/640 png/rgb-1920 png/rgba-1920 png/rgb-640 png/rgba-640 \
         webp/orig webp/lossy-1920 webp/lossy-640 webp/lossless-1920 webp/lossless-640 gif/anim-480; do
  mkdir -p "$OUT/$d"
done

# name -> source file
declare -A SRC
for p in "${PHOTOS[@]}"; do
  lc="photo-$(echo "$p" | tr 'A-Z' 'a-z')"
  SRC[$lc]="/usr/share/backgrounds/mate/nature/$p.jpg"
  cp "${SRC[$lc]}" "$OUT/jpeg/orig/$lc.jpg"
done
for r in "${RENDERS[@]}"; do
  SRC[render-$r]="/usr/share/backgrounds/gnome/$r.webp"
  cp "${SRC[render-$r]}" "$OUT/webp/orig/render-$r.webp"
  vips jpegsave "${SRC[render-$r]}" "$OUT/jpeg/orig/render-$r.jpg" --Q 85 --strip
done

# Alpha mask: radial gradient, opaque in the centre, transparent in the corners.
add_alpha() { # in.png out.png
  local wh; wh="$(identify -format '%wx%h' "$1")"
  convert "$1" \( -size "$wh" radial-gradient:white-black \) -alpha off \
    -compose CopyOpacity -composite -define png:compression-level=6 "$2"
}

# Photos that also go into the lossless 1920 sets: the first 8 in alphabetical order.
declare -A LOSSLESS_1920
for p in "${PHOTOS[@]:0:8}"; do LOSSLESS_1920[photo-$(echo "$p" | tr 'A-Z' 'a-z')]=1; done

for name in $(printf '%s\n' "${!SRC[@]}" | sort); do
  src="${SRC[$name]}"
  for size in 1920 640; do
    v="$TMP/$name-$size.v"
    vips thumbnail "$src" "$v" "$size" --height "$size" --size down
    vips jpegsave "$v" "$OUT/jpeg/$size/$name.jpg" --Q 85 --strip
    [[ $size == 1920 ]] && vips jpegsave "$v" "$OUT/jpeg/1920-prog/$name.jpg" --Q 85 --strip --interlace
    # cwebp reads PNG: go through a temporary RGB PNG
    vips pngsave "$v" "$TMP/$name-$size.png" --compression 1 --strip
    cwebp -quiet -q 80 "$TMP/$name-$size.png" -o "$OUT/webp/lossy-$size/$name.webp"
    if [[ $name == photo-* ]] && { [[ $size == 640 ]] || [[ -n "${LOSSLESS_1920[$name]:-}" ]]; }; then
      vips pngsave "$v" "$OUT/png/rgb-$size/$name.png" --compression 6 --filter all --strip
      add_alpha "$OUT/png/rgb-$size/$name.png" "$OUT/png/rgba-$size/$name.png"
      cwebp -quiet -lossless "$OUT/png/rgba-$size/$name.png" -o "$OUT/webp/lossless-$size/$name.webp"
    fi
  done
  echo "  $name done"
done

# Animated GIFs, 30 frames of 480x360.
FW=480 FH=360 NF=30
make_pan_gif() { # name source-key
  local name=$1 v="$TMP/$2-1920.v" fr="$TMP/frames-$1"
  mkdir -p "$fr"
  local w h; w=$(vipsheader -f width "$v"); h=$(vipsheader -f height "$v")
  for ((i = 0; i < NF; i++)); do
    local x=$(((w - FW) * i / (NF - 1))) y=$(((h - FH) * i / (NF - 1)))
    vips crop "$v" "$fr/$(printf %02d $i).png" "$x" "$y" "$FW" "$FH"
  done
  convert -delay 4 -loop 0 "$fr"/*.png "$OUT/gif/anim-480/$name.gif"
}
make_sprite_gif() { # name background-key sprite-key
  local name=$1 bg="$TMP/$2-1920.v" sp="$TMP/$3-640.v" fr="$TMP/frames-$1"
  mkdir -p "$fr"
  vips crop "$bg" "$fr/bg.png" 200 100 "$FW" "$FH"
  vips crop "$sp" "$fr/sprite.png" 100 60 160 160
  for ((i = 0; i < NF; i++)); do
    local x=$(((FW - 160) * i / (NF - 1))) y=$(((FH - 160) * ((i * 2) % NF) / NF))
    convert "$fr/bg.png" "$fr/sprite.png" -geometry "+$x+$y" -composite "$fr/$(printf %02d $i).png"
  done
  convert -delay 4 -loop 0 "$fr"/[0-9]*.png "$fr/full.gif"
  gifsicle --no-warnings -O3 "$fr/full.gif" -o "$OUT/gif/anim-480/$name.gif"
}
make_pan_gif pan-storm photo-storm
make_pan_gif pan-adwaita render-adwaita-l
make_sprite_gif sprite-ladybird photo-garden photo-ladybird
make_sprite_gif sprite-truchet photo-aqua render-truchet-d

rm -rf "$TMP"
echo "$SELF_HASH" > "$STAMP"
echo "corpus built: $OUT"
(cd "$OUT" && for d in */*/; do printf '  %-20s %3d files %8s\n' "$d" "$(ls "$d" | wc -l)" "$(du -sh "$d" | cut -f1)"; done)
echo "  total $(du -sh "$OUT" | cut -f1)"
