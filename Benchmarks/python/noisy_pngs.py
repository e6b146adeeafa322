"""Writes COUNT noisy-gradient RGB PNGs of SIZE x SIZE pixels as FOLDER/img0.png ... : sources
that compress like photographs, each different, made without any imaging library.

    python3 noisy_pngs.py FOLDER COUNT SIZE
"""
import random
import struct
import sys
import zlib


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def noisy_png(n: int, size: int) -> bytes:
    rng = random.Random(n)
    rows = b"".join(
        b"\0" + bytes(((x + y + n) % 256 ^ rng.randrange(64)) for x in range(size) for _ in range(3)) for y in range(size)
    )
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def main() -> None:
    folder, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for n in range(count):
        with open(f"{folder}/img{n}.png", "wb") as file:
            file.write(noisy_png(n, size))


if __name__ == "__main__":
    main()
