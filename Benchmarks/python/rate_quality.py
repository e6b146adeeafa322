"""Rate against quality, ours against libvips' encoders, in one run.

For each photo and each lossy format (jpeg, webp, avif), encodes the photo at every quality of
the sweep with `imagepipe convert IN OUT --quality Q` and with `vips copy IN OUT[Q=Q]` (vips'
other defaults), decodes each output back to PNG with vips, and scores it against the source with
SSIMULACRA2 (the `ssimulacra2` package from PyPI, a Python port of libjxl's tool). Reports, per
format:

- BD-rate: the mean ratio of our bytes to vips' at equal SSIMULACRA2, over the scores both curves
  reach (log-bytes interpolated linearly in score); below 1 means our files are smaller;
- CPU seconds per encode (user + system of the whole process), ours and vips'.

    python3 rate_quality.py --imagepipe BIN PHOTO... [--qualities 30,40,...] [--formats jpeg,webp,avif]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import ssimulacra2


def run(command):
    """Runs `command`, returns its CPU seconds (every thread)."""
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen(command, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"rate_quality.py: {' '.join(command)} failed: {process.stderr.read().decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def curve_points(tool, imagepipe, source, reference, fmt, qualities, folder):
    """[(score, bytes, cpu)] for one tool, one photo, one format over the sweep."""
    points = []
    for quality in qualities:
        out = os.path.join(folder, f"{tool}-q{quality}.{fmt if fmt != 'jpeg' else 'jpg'}")
        if tool == "imagepipe":
            cpu = run([imagepipe, "convert", source, out, "--quality", str(quality)])
        else:
            cpu = run(["vips", "copy", source, f"{out}[Q={quality}]"])
        decoded = out + ".png"
        run(["vips", "copy", out, decoded])
        score = ssimulacra2.compute_ssimulacra2(reference, decoded)
        points.append((score, os.path.getsize(out), cpu))
    return sorted(points)


def log_bytes_at(points, score):
    """log(bytes) at `score`, linearly between the two points around it."""
    for (s0, b0, _), (s1, b1, _) in zip(points, points[1:]):
        if s0 <= score <= s1:
            t = 0 if s1 == s0 else (score - s0) / (s1 - s0)
            return math.log(b0) + t * (math.log(b1) - math.log(b0))
    return None


def bd_rate(ours, theirs, steps=50):
    """Mean of our bytes / their bytes at equal score, over the scores both reach."""
    low = max(ours[0][0], theirs[0][0])
    high = min(ours[-1][0], theirs[-1][0])
    if high <= low:
        return None
    diffs = []
    for i in range(steps + 1):
        score = low + (high - low) * i / steps
        a, b = log_bytes_at(ours, score), log_bytes_at(theirs, score)
        if a is not None and b is not None:
            diffs.append(a - b)
    return math.exp(sum(diffs) / len(diffs)) if diffs else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagepipe", required=True)
    parser.add_argument("--qualities", default="30,40,50,60,70,80,90")
    parser.add_argument("--formats", default="jpeg,webp,avif")
    parser.add_argument("photos", nargs="+")
    args = parser.parse_args()
    qualities = [int(q) for q in args.qualities.split(",")]
    formats = args.formats.split(",")
    print(f"{'format':6} {'photo':24} {'BD-rate ours/vips':>18} {'CPU s ours':>11} {'CPU s vips':>11}")
    summary = {fmt: ([], [], []) for fmt in formats}
    with tempfile.TemporaryDirectory() as folder:
        for photo in args.photos:
            reference = os.path.join(folder, "reference.png")
            run(["vips", "copy", photo, reference])
            for fmt in formats:
                ours = curve_points("imagepipe", args.imagepipe, reference, reference, fmt, qualities, folder)
                theirs = curve_points("vips", args.imagepipe, reference, reference, fmt, qualities, folder)
                rate = bd_rate(ours, theirs)
                cpu_ours = sum(p[2] for p in ours) / len(ours)
                cpu_vips = sum(p[2] for p in theirs) / len(theirs)
                name = os.path.basename(photo)
                print(f"{fmt:6} {name:24} {rate if rate else float('nan'):18.3f} {cpu_ours:11.3f} {cpu_vips:11.3f}", flush=True)
                if rate:
                    summary[fmt][0].append(math.log(rate))
                summary[fmt][1].append(cpu_ours)
                summary[fmt][2].append(cpu_vips)
    for fmt, (rates, cpu_ours, cpu_vips) in summary.items():
        if rates:
            mean = math.exp(sum(rates) / len(rates))
            print(f"{fmt}: BD-rate ours/vips {mean:.3f} (geometric mean over {len(rates)} photos); "
                  f"CPU per encode {sum(cpu_ours) / len(cpu_ours):.3f} s ours, {sum(cpu_vips) / len(cpu_vips):.3f} s vips")


if __name__ == "__main__":
    main()
