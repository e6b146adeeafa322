"""Pillow doing compare.sh's jobs, the way a Python user would write them, in one process.

    pillow_batch.py thumb SIZE QUALITY OUTDIR FILE...   SIZExSIZE-fit thumbnails, same format as the input
    pillow_batch.py jpeg  SIZE QUALITY OUTDIR FILE...   the same thumbnails, always saved as JPEG (alpha
                                                        composited over white; an animation's first frame)
    pillow_batch.py png   0    0       OUTDIR FILE...   full decode, re-encoded as PNG

Image.thumbnail() lets libjpeg shrink on load (draft mode) before its Lanczos resample, so Pillow
takes the same shortcut ImagePipe's JPEG coder does.
"""
import os
import sys

from PIL import Image

EXTENSIONS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}


def save_jpeg_thumbnail(image: Image.Image, size: int, quality: int, target: str) -> None:
    # Palette and gray+alpha images are resampled in RGBA (Pillow resizes a palette by nearest
    # neighbour); JPEGs stay as they are, so draft mode still shrinks them on load.
    if image.mode not in ("RGB", "L", "RGBA"):
        image = image.convert("RGBA")
    image.thumbnail((size, size), Image.Resampling.LANCZOS)
    if image.mode == "RGBA":
        flat = Image.new("RGB", image.size, (255, 255, 255))
        flat.paste(image, mask=image.getchannel("A"))
        image = flat
    image.save(target, quality=quality)


def main() -> None:
    mode, size, quality, outdir, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
    for path in files:
        with Image.open(path) as image:
            base = os.path.basename(path)
            if mode == "png":
                image.load()
                image.save(os.path.join(outdir, base + ".png"), compress_level=6)
                continue
            if mode == "jpeg":
                save_jpeg_thumbnail(image, size, quality, os.path.join(outdir, base + ".jpg"))
                continue
            source_format = image.format
            image.thumbnail((size, size), Image.Resampling.LANCZOS)
            target = os.path.join(outdir, base + "." + EXTENSIONS[source_format])
            if source_format == "PNG":
                image.save(target, compress_level=6)
            else:
                image.save(target, quality=quality)


if __name__ == "__main__":
    main()
