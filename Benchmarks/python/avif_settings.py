"""libaom settings for AVIF, mapped with avifenc (the libavif our encoder opens) against vips.

Encodes each photo over a quality sweep with each named avifenc setting and with
`vips copy IN OUT[Q=Q]`, scores every output with SSIMULACRA2 (as rate_quality.py does) and prints
each point, then each setting's BD-rate against vips (bytes at equal score, geometric mean over
the photos) and CPU seconds per encode. `{q}` in a setting's arguments is the quantizer a quality
maps to (as CodersAVIF and libheif map it); `--crop WxH` scores the centre of each photo only,
for a quick map.

    python3 avif_settings.py --qualities 40,55,70 --crop 640x400 PHOTO... \\
        --setting 's8=-s 8 -y 420 --min {q} --max {q}' --setting 's5=-s 5 -y 420 --min {q} --max {q}' \\
        --setting 's6-cq-ssim=-s 6 -y 420 --min 0 --max 63 -a end-usage=q -a cq-level={q} -a tune=ssim'

`-c svt` and `-c rav1e` in a setting's arguments pick libavif's other AV1 encoders (their
quantizers do not mean libaom's: sweep wider qualities so the curves overlap vips'); `--plot
FILE` draws each setting's curve (mean score and geometric-mean bytes over the photos per
quality, CPU per encode in the legend) to a PNG.
"""
import argparse
import math
import os
import tempfile

import ssimulacra2

from rate_quality import bd_rate, run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qualities", default="40,55,70")
    parser.add_argument("--crop", help="WxH: score the centre of each photo only")
    parser.add_argument("--setting", action="append", required=True, help="NAME=avifenc arguments, {q} the quantizer")
    parser.add_argument("--plot", help="draw bytes against SSIMULACRA2 per setting to this PNG")
    parser.add_argument("photos", nargs="+")
    args = parser.parse_args()
    qualities = [int(q) for q in args.qualities.split(",")]
    settings = dict(entry.split("=", 1) for entry in args.setting)
    curves = {name: [] for name in ["vips", *settings]}
    with tempfile.TemporaryDirectory() as folder:
        for index, photo in enumerate(args.photos):
            reference = os.path.join(folder, f"reference-{index}.png")
            if args.crop:
                width, height = (int(side) for side in args.crop.split("x"))
                full = os.path.join(folder, "full.png")
                run(["vips", "copy", photo, full])
                run(["vips", "smartcrop", full, reference, str(width), str(height), "--interesting", "centre"])
            else:
                run(["vips", "copy", photo, reference])
            for name in curves:
                points = []
                for quality in qualities:
                    out = os.path.join(folder, f"{name}-{quality}.avif")
                    if name == "vips":
                        cpu = run(["vips", "copy", reference, f"{out}[Q={quality}]"])
                    else:
                        quantizer = ((100 - quality) * 63 + 50) // 100
                        cpu = run(["avifenc", "-j", "1", *settings[name].replace("{q}", str(quantizer)).split(), reference, out])
                    run(["vips", "copy", out, out + ".png"])
                    score = ssimulacra2.compute_ssimulacra2(reference, out + ".png")
                    points.append((score, os.path.getsize(out), cpu))
                    print(f"{os.path.basename(photo):24} {name:16} Q{quality:<3} SSIMULACRA2 {score:6.2f} {os.path.getsize(out):8} B "
                          f"{cpu:6.3f} s", flush=True)
                curves[name].append(sorted(points))
    summaries = {}
    for name, photos in curves.items():
        rates = [bd_rate(ours, theirs) for ours, theirs in zip(photos, curves["vips"])]
        logs = [math.log(rate) for rate in rates if rate]
        cpu = sum(point[2] for points in photos for point in points) / sum(len(points) for points in photos)
        rate = math.exp(sum(logs) / len(logs)) if logs else float("nan")
        print(f"{name:16} BD-rate / vips {rate:.3f}  CPU per encode {cpu:.3f} s")
        summaries[name] = (rate, cpu)
    if args.plot:
        plot(args.plot, curves, summaries)


def plot(path, curves, summaries):
    """Bytes against SSIMULACRA2, one line per setting: per sweep quality, the mean score and the
    geometric-mean bytes over the photos."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(8, 5), dpi=100)
    for name, photos in curves.items():
        by_quality = list(zip(*photos))
        scores = [sum(point[0] for point in points) / len(points) for points in by_quality]
        sizes = [math.exp(sum(math.log(point[1]) for point in points) / len(points)) / 1024 for points in by_quality]
        rate, cpu = summaries[name]
        style = "o-" if name == "vips" else ".-" if "aom" in name else "s--" if "svt" in name else "^:"
        axes.plot(scores, sizes, style, label=f"{name}: BD-rate {rate:.3f}, {cpu:.3f} s CPU", markersize=4)
    axes.set_yscale("log")
    axes.set_xlabel("SSIMULACRA2 (higher is better)")
    axes.set_ylabel("KiB per crop (geometric mean, log scale)")
    axes.set_title("AVIF encoders in libavif 0.11 (avifenc -j 1, 4:2:0) against vips", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


if __name__ == "__main__":
    main()
