#!/usr/bin/env python3
"""Decodes every frame of each APNG with Pillow, as a player would (frames composited in order),
and prints files per CPU second in the format of coders-apng-bench; one thread.

usage: pillow_apng.py ROUNDS FILE...
       pillow_apng.py --compare DIR FILE...   (frames coders-apng-bench --dump wrote into DIR: prints
                                              the largest channel difference per file, exits 1 if any)
"""
import io
import os
import sys
import time

from PIL import Image

if sys.argv[1] == "--compare":
    worst_overall = 0
    for path in sys.argv[3:]:
        image = Image.open(path)
        worst = 0
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            reference = image.convert("RGBA").tobytes()
            with open(os.path.join(sys.argv[2], f"{os.path.basename(path)}.{index}.rgba"), "rb") as dumped:
                ours = dumped.read()
            worst = max(worst, max(abs(a - b) for a, b in zip(reference, ours)) if len(ours) == len(reference) else 256)
        print(f"{os.path.basename(path)}: {image.n_frames} frames, largest difference from Pillow {worst}")
        worst_overall = max(worst_overall, worst)
    sys.exit(1 if worst_overall > 0 else 0)

rounds = int(sys.argv[1])
files = [open(path, "rb").read() for path in sys.argv[2:]]
checksum = 0
start = time.process_time()
for _ in range(rounds):
    for data in files:
        image = Image.open(io.BytesIO(data))
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            image.load()
            checksum += image.getpixel((0, 0))[0]
seconds = time.process_time() - start
decoded = rounds * len(files)
print(f"{decoded / seconds:.2f} images/s ({decoded} decoded in {seconds:.3f} s, checksum {checksum & 0xff})")
