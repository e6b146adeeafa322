"""What colour management costs on 256 px thumbnails: tagged against untagged copies of the corpus.

    python3 Benchmarks/python/colour_thumbnails.py IMAGEPIPE [--rounds N] [--corpus DIR]

Makes copies of the corpus's jpeg/1920 and png/rgb-1920 sets tagged with a Display P3 profile
(APP2 `ICC_PROFILE` after SOI; `iCCP` after IHDR, replacing any sRGB, gAMA, cHRM or iCCP chunk),
then thumbnails each set as `ab_thumbnails.py` does, in rotating order:

- untagged: the corpus files as they are (nothing to convert);
- tagged: the P3 copies, converted to sRGB after the shrink (the default);
- untagged --keep-icc: colour handling off.

Reports the medians of CPU seconds (every thread, wait4's rusage) and two ratios: tagged / untagged
(what the conversion adds to a tagged image) and untagged / untagged --keep-icc (what colour
management costs an untagged sRGB image).
"""
import argparse
import os
import shutil
import statistics
import struct
import tempfile
import zlib

from ab_thumbnails import run_once

SETS = [("jpeg/1920", "jpeg"), ("png/rgb-1920", "png")]


def display_p3_profile() -> bytes:
    """An ICC v2 matrix/TRC profile: Display P3's colorants (adapted to D50, as Apple's profile
    holds them) with a 2.2 gamma curve, which lcms2 runs as it runs Apple's."""
    def xyz(x: float, y: float, z: float) -> bytes:
        return b"XYZ " + bytes(4) + b"".join(struct.pack(">i", round(v * 65536)) for v in (x, y, z))
    text = b"Display P3 (bench)\0"
    desc = b"desc" + bytes(4) + struct.pack(">I", len(text)) + text + bytes(8) + bytes(3) + bytes(67)
    curve = b"curv" + bytes(4) + struct.pack(">IH", 1, round(2.2 * 256)) + bytes(2)
    tags = [(b"desc", desc), (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
            (b"rXYZ", xyz(0.5151, 0.2412, -0.0011)), (b"gXYZ", xyz(0.2920, 0.6922, 0.0419)),
            (b"bXYZ", xyz(0.1571, 0.0666, 0.7841)),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve)]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for signature, body in tags:
        body += bytes(-len(body) % 4)
        table += signature + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"lcms" + bytes([2, 0x10, 0, 0]) + b"mntr" + b"RGB " + b"XYZ "
              + bytes(12) + b"acsp" + bytes(24) + struct.pack(">I", 0)
              + b"".join(struct.pack(">i", round(v * 65536)) for v in (0.9642, 1.0, 0.8249)))
    header += bytes(128 - len(header))
    return header + struct.pack(">I", len(tags)) + table + data


def tagged_jpeg(jpeg: bytes, profile: bytes) -> bytes:
    assert len(profile) <= 65519
    segment = b"ICC_PROFILE\0\x01\x01" + profile
    return jpeg[:2] + b"\xff\xe2" + struct.pack(">H", len(segment) + 2) + segment + jpeg[2:]


def tagged_png(png: bytes, profile: bytes) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    out, index = png[:8], 8
    while index < len(png):
        length = struct.unpack(">I", png[index:index + 4])[0]
        kind = png[index + 4:index + 8]
        end = index + 12 + length
        if kind not in (b"sRGB", b"gAMA", b"cHRM", b"iCCP"):
            out += png[index:end]
        if kind == b"IHDR":
            out += chunk(b"iCCP", b"P3\0\0" + zlib.compress(profile))
        index = end
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("imagepipe")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--corpus", default=os.environ.get("CORPUS_DIR", "/tmp/imagepipe-bench-corpus"))
    args = parser.parse_args()
    profile = display_p3_profile()
    work = tempfile.mkdtemp(prefix="imagepipe-colour.")
    try:
        print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        print(f"{'set':<15}{'untagged s':>11}{'tagged s':>10}{'keep-icc s':>11}{'tagged/untagged':>17}{'untagged/keep-icc':>19}")
        for folder, fmt in SETS:
            directory = os.path.join(args.corpus, folder)
            originals = sorted(os.path.join(directory, name) for name in os.listdir(directory))
            tagged_dir = os.path.join(work, "inputs", folder)
            os.makedirs(tagged_dir)
            tagged = []
            for path in originals:
                with open(path, "rb") as source:
                    data = source.read()
                copy = os.path.join(tagged_dir, os.path.basename(path))
                with open(copy, "wb") as target:
                    target.write(tagged_jpeg(data, profile) if fmt == "jpeg" else tagged_png(data, profile))
                tagged.append(copy)
            runs = {"untagged": (originals, []), "tagged": (tagged, []), "keep-icc": (originals, ["--keep-icc"])}
            results = {name: [] for name in runs}
            for name, (files, extra) in runs.items():
                run_once(args.imagepipe, files, fmt, os.path.join(work, "warm"), extra)
            names = list(runs)
            for round_index in range(args.rounds):
                order = names[round_index % 3:] + names[:round_index % 3]
                for name in order:
                    files, extra = runs[name]
                    results[name].append(run_once(args.imagepipe, files, fmt, os.path.join(work, name), extra))
            cpu = {name: statistics.median(r[1] for r in values) for name, values in results.items()}
            print(f"{folder:<15}{cpu['untagged']:>11.3f}{cpu['tagged']:>10.3f}{cpu['keep-icc']:>11.3f}"
                  f"{cpu['tagged'] / cpu['untagged']:>17.3f}{cpu['untagged'] / cpu['keep-icc']:>19.3f}")
        print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
