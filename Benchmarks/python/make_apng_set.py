#!/usr/bin/env python3
"""Writes the APNG benchmark set with Pillow's APNG writer (an encoder other than ours):

  pan-rgb.png      30 frames 480x360 RGB: a window panning across a photo (every pixel changes,
                   whole frames)
  sprite-rgba.png  30 frames 480x360 RGBA: a still half-transparent backdrop with a 160 px photo
                   sprite moving over it; Pillow stores the changed rectangle of each frame
                   (sub-rectangles replacing what is there)
  sprite-over.png  the same over an opaque photo, the sprite round with soft edges, each changed
                   rectangle blended over the canvas
  spinner.png      Examples/images/spinner.gif re-encoded as APNG (12 frames 160x120, palette
                   turned RGBA)

usage: make_apng_set.py OUTDIR   (run from the repository root)
"""
import os
import sys

from PIL import Image, ImageDraw

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
photo = Image.open("Examples/images/photo.jpg").convert("RGB").resize((960, 1440), Image.LANCZOS)

pan = [photo.crop((i * 16, i * 30, i * 16 + 480, i * 30 + 360)) for i in range(30)]
pan[0].save(f"{out}/pan-rgb.png", save_all=True, append_images=pan[1:], duration=40, loop=0)

def moving_sprite(backdrop, sprite, name, **options):
    frames = []
    for i in range(30):
        frame = backdrop.copy()
        frame.alpha_composite(sprite, (i * 10, 100 + (i % 10) * 8))
        frames.append(frame)
    frames[0].save(f"{out}/{name}", save_all=True, append_images=frames[1:], duration=40, loop=0, **options)


translucent = Image.linear_gradient("L").resize((480, 360)).convert("RGBA")
translucent.putalpha(Image.radial_gradient("L").resize((480, 360)).point(lambda v: 255 - v // 2))
ImageDraw.Draw(translucent).ellipse((60, 40, 420, 320), outline=(200, 40, 40, 255), width=12)
sprite = photo.crop((200, 300, 360, 460)).convert("RGBA")
moving_sprite(translucent, sprite, "sprite-rgba.png", blend=0, disposal=0)

opaque = photo.crop((0, 0, 480, 360)).convert("RGBA")
round_sprite = sprite.copy()
round_sprite.putalpha(Image.radial_gradient("L").resize((160, 160)).point(lambda v: 0 if v > 127 else 255 - v))
moving_sprite(opaque, round_sprite, "sprite-over.png", blend=1, disposal=0)

gif = Image.open("Examples/images/spinner.gif")
spin = []
for index in range(gif.n_frames):
    gif.seek(index)
    spin.append(gif.convert("RGBA"))
spin[0].save(f"{out}/spinner.png", save_all=True, append_images=spin[1:], duration=50, loop=0)
