#!/usr/bin/env python3
"""Makes the AVIF files of this folder: avifenc 0.11 (Debian's libavif-bin) encodes
TestPNGWriter.pattern (Tests/TestSupport/TestPNGWriter.swift, repeated below) as libavif's own
test files were made (tests/data/README.md in AOMediaCodec/libavif). Lossless encodes, so the
expected pixels are the pattern's.

    python3 Tests/Fixtures/corpus/avif/make-fixtures.py   # needs /usr/bin/avifenc

avifenc's output depends on its libaom; the files committed were made with libavif 0.11.1 and
libaom 3.6.0 (Debian 12).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ALPHA_URN = b'urn:mpeg:mpegB:cicp:systems:auxiliary:alpha'
DEPTH_URN = b'urn:mpeg:mpegB:cicp:systems:auxiliary:depth'


# --- the source pictures -------------------------------------------------------------------------

def pattern(width, height, alpha, seed=0):
    """TestPNGWriter.pattern: gradients, an 8-pixel checker, opacity ramping left to right."""
    rgba = bytearray([255]) * (width * height * 4)
    for y in range(height):
        for x in range(width):
            o = (y * width + x) * 4
            checker = ((x + seed * 3) // 8 + y // 8) % 2 == 0
            rgba[o] = (x * 255) // max(width - 1, 1)
            rgba[o + 1] = (y * 255) // max(height - 1, 1)
            rgba[o + 2] = (seed * 60) % 256 if checker else 200
            if alpha:
                rgba[o + 3] = (x * 255) // max(width - 1, 1)
    return bytes(rgba)


def png(width, height, alpha, seed=0):
    rgba = pattern(width, height, alpha, seed)
    channels = 4 if alpha else 3
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            o = (y * width + x) * 4
            raw += rgba[o:o + channels]

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack('>IIBBBBB', width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(bytes(raw), 6)) + chunk(b'IEND', b'')


def avifenc(work, arguments, sources):
    """avifenc -s 6 -l (lossless: 4:4:4, identity matrix) on PNGs of the pattern. Not speed 10:
    libaom 3.6 at speed 10 codes the later frames of a lossless sequence as copies of the first."""
    paths = []
    for index, (width, height, alpha, seed) in enumerate(sources):
        path = os.path.join(work, f'source-{index}.png')
        with open(path, 'wb') as f:
            f.write(png(width, height, alpha, seed))
        paths.append(path)
    output = os.path.join(work, 'out.avif')
    subprocess.run(['avifenc', '-s', '6', '-l'] + arguments + paths + [output], check=True, stdout=subprocess.DEVNULL)
    with open(output, 'rb') as f:
        return without_times(bytearray(f.read()))


def without_times(data):
    """The creation and modification times of mvhd, tkhd and mdhd set to 0, so that the files
    made again are the same bytes."""
    def clear(box):
        width = 8 if data[box.payload] == 1 else 4
        data[box.payload + 4:box.payload + 4 + 2 * width] = bytes(2 * width)

    for moov in (b for b in boxes(data, 0, len(data)) if b.kind == 'moov'):
        for b in boxes(data, moov.payload, moov.end):
            if b.kind == 'mvhd':
                clear(b)
            elif b.kind == 'trak':
                clear(child(data, b, 'tkhd'))
                clear(child(data, child(data, b, 'mdia'), 'mdhd'))
    return data


# --- boxes ---------------------------------------------------------------------------------------

class Box:
    def __init__(self, kind, start, header, end):
        self.kind, self.start, self.header, self.end = kind, start, header, end

    @property
    def payload(self):
        return self.start + self.header


def boxes(data, start, end):
    """The boxes in data[start:end] (32-bit sizes, as avifenc writes them)."""
    found = []
    while start + 8 <= end:
        size, kind = struct.unpack('>I4s', data[start:start + 8])
        assert size >= 8 and start + size <= end, f'box {kind} at {start}'
        found.append(Box(kind.decode('latin1'), start, 8, start + size))
        start += size
    return found


def child(data, parent, kind):
    return next(b for b in boxes(data, parent.payload, parent.end) if b.kind == kind)


# --- the files -----------------------------------------------------------------------------------

def transforms(work):
    """libavif's clap_irot_imir: a crop (clap) of 27x19 at (5, 3) of a 40x30 picture, rotated a
    quarter turn (irot 1) and mirrored top to bottom (imir 0), all three marked essential."""
    return avifenc(work, ['--crop', '5,3,27,19', '--irot', '1', '--imir', '0'], [(40, 30, True, 0)])


def sequence_clap(work):
    """An image sequence whose av01 sample entry carries clap: 16x10 at (4, 2) of 24x16."""
    return avifenc(work, ['--crop', '4,2,16,10', '--timescale', '1000', '--duration', '100'],
                   [(24, 16, False, seed) for seed in (1, 2, 3)])


FILES = {
    'clap-irot-imir.avif': transforms,
    'sequence-clap.avif': sequence_clap,
}


def main():
    names = sys.argv[1:] or list(FILES)
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            data = FILES[name](work)
            with open(os.path.join(HERE, name), 'wb') as f:
                f.write(data)
            print(f'{name}: {len(data)} bytes')


if __name__ == '__main__':
    main()
