"""Rate against quality, ours against libvips' encoders, in one run.

For each photo and each lossy format (jpeg, webp, avif, jxl), encodes the photo at every quality of
the sweep, and at the format's default quality, with `imagepipe convert IN OUT --quality Q` and
with `vips copy IN OUT[Q=Q]` (vips' other defaults), decodes each output back to PNG with vips,
and scores it against the source with SSIMULACRA2 (the `ssimulacra2` package from PyPI, a Python
port of libjxl's tool). Reports, per format:

- BD-rate: the mean ratio of our bytes to vips' at equal SSIMULACRA2, over the scores both curves
  reach (log-bytes interpolated linearly in score); below 1 means our files are smaller;
- CPU seconds per encode (user + system of the whole process), ours and vips';
- at the default quality (the service's `--format-quality` defaults), the SSIMULACRA2, bytes and
  CPU of each;
- our quality that reaches each of a few SSIMULACRA2 targets (`--targets`), the sweep's answer to
  "which default quality gives each format the same perceived quality".

`--data FILE` appends every measurement to a TSV; with `--reuse` the points already there are
taken instead of measured, so a run with other defaults measures only the new default points.
`--notes FILE` puts hand-written Markdown (what the figures decided) into the report.

With `--report FILE` the report is also written there as Markdown, with the command that made
it, and a plot per format beside it (`rate-quality-FORMAT.png`: bytes against SSIMULACRA2, ours
and vips', the default quality marked; needs matplotlib).

    python3 rate_quality.py --imagepipe BIN PHOTO... [--qualities 30,40,...] [--formats jpeg,webp,avif,jxl]
        [--defaults jpeg=65,webp=82,avif=63,jxl=72] [--report FILE] [--command TEXT] [--data FILE [--reuse]]
        [--targets 70,75,80,85] [--notes FILE]
"""
import argparse
import csv
import datetime
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


EXTENSIONS = {"jpeg": "jpg", "webp": "webp", "avif": "avif", "jxl": "jxl"}
DATA_FIELDS = ["photo", "format", "tool", "quality", "ssimulacra2", "bytes", "cpu_s"]


def read_data(path):
    """{(photo, format, tool, quality): (score, bytes, cpu)} from a data file written by `record`."""
    known = {}
    if path and os.path.exists(path):
        with open(path, newline="") as data:
            for row in csv.DictReader(data, delimiter="\t"):
                key = (row["photo"], row["format"], row["tool"], int(row["quality"]))
                known[key] = (float(row["ssimulacra2"]), int(row["bytes"]), float(row["cpu_s"]))
    return known


def record(path, key, point):
    """Appends one measurement to the data file (a TSV with a header), one line per write."""
    if not path:
        return
    new = not os.path.exists(path)
    with open(path, "a") as data:
        line = ("\t".join(DATA_FIELDS) + "\n" if new else "") + "\t".join(map(str, (*key, *point))) + "\n"
        data.write(line)


def curve_points(tool, imagepipe, reference, fmt, qualities, folder, photo, known, data, counts):
    """{quality: (score, bytes, cpu)} for one tool, one photo, one format; points in `known` are
    not measured again, new ones are appended to `data`; `counts` tallies both."""
    points = {}
    for quality in qualities:
        key = (photo, fmt, tool, quality)
        if key in known:
            points[quality] = known[key]
            counts["reused"] += 1
            continue
        counts["measured"] += 1
        out = os.path.join(folder, f"{tool}-q{quality}.{EXTENSIONS[fmt]}")
        if tool == "imagepipe":
            cpu = run([imagepipe, "convert", reference, out, "--quality", str(quality)])
        else:
            cpu = run(["vips", "copy", reference, f"{out}[Q={quality}]"])
        decoded = out + ".png"
        run(["vips", "copy", out, decoded])
        score = ssimulacra2.compute_ssimulacra2(reference, decoded)
        points[quality] = (score, os.path.getsize(out), cpu)
        record(data, key, points[quality])
    return points


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


def mean_curve(per_photo, qualities):
    """[(quality, mean score, geometric-mean bytes, mean cpu)] over the photos."""
    curve = []
    for quality in qualities:
        points = [photo[quality] for photo in per_photo]
        curve.append((quality, sum(p[0] for p in points) / len(points),
                      math.exp(sum(math.log(p[1]) for p in points) / len(points)),
                      sum(p[2] for p in points) / len(points)))
    return curve


def plot(path, fmt, ours, theirs, default, summary, others=()):
    """Bytes against SSIMULACRA2, ours and vips', the default quality marked; 800×500 pixels.
    `others`: more (label, curve) pairs drawn dashed, e.g. an earlier build's."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(8, 5), dpi=100)
    for name, curve, colour in (("imagepipe", ours, "tab:blue"), ("vips", theirs, "tab:orange")):
        axes.plot([p[1] for p in curve], [p[2] / 1024 for p in curve], "o-", color=colour, label=name, markersize=4)
        for quality, score, size, _ in curve:
            axes.annotate(str(quality), (score, size / 1024), textcoords="offset points", xytext=(4, -10), fontsize=7, color=colour)
        mark = next(point for point in curve if point[0] == default)
        axes.plot([mark[1]], [mark[2] / 1024], "*", color=colour, markersize=14, markeredgecolor="black",
                  label=f"{name} at the default Q{default}: {mark[1]:.1f}, {mark[2] / 1024:.1f} KiB, {mark[3]:.2f} s CPU")
    for label, curve in others:
        axes.plot([p[1] for p in curve], [p[2] / 1024 for p in curve], "s--", color="tab:gray", label=label, markersize=4)
    axes.set_yscale("log")
    kib = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}")
    axes.yaxis.set_major_formatter(kib)
    axes.yaxis.set_minor_formatter(kib)
    axes.tick_params(axis="y", which="minor", labelsize=7)
    axes.set_xlabel("SSIMULACRA2 (higher is better)")
    axes.set_ylabel("KiB per photo (geometric mean, log scale)")
    rate = summary["bd_rate"]
    axes.set_title(f"{fmt.upper()}: imagepipe / vips bytes at equal score (BD-rate) {rate:.3f}; "
                   f"CPU per encode {summary['cpu_ours']:.2f} s / {summary['cpu_vips']:.2f} s", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagepipe", required=True)
    parser.add_argument("--qualities", default="30,40,50,60,70,80,90")
    parser.add_argument("--formats", default="jpeg,webp,avif,jxl")
    parser.add_argument("--defaults", default="jpeg=65,webp=82,avif=63,jxl=72")
    parser.add_argument("--report", help="also write the report here as Markdown, and a PNG per format beside it")
    parser.add_argument("--command", help="the command to name in the report", default=" ".join(sys.argv))
    parser.add_argument("--notes", help="Markdown to put in the report after the tables (the decisions the figures led to)")
    parser.add_argument("--data", help="append every measurement to this TSV")
    parser.add_argument("--reuse", action="store_true", help="take the points already in --data instead of measuring them again")
    parser.add_argument("--targets", default="70,75,80,85", help="SSIMULACRA2 scores to give each format's quality for")
    parser.add_argument("photos", nargs="+")
    args = parser.parse_args()
    sweep = [int(q) for q in args.qualities.split(",")]
    formats = args.formats.split(",")
    defaults = {fmt: int(q) for fmt, q in (entry.split("=") for entry in args.defaults.split(","))}
    lines = [f"{'format':6} {'photo':24} {'BD-rate ours/vips':>18} {'CPU s ours':>11} {'CPU s vips':>11}"]
    print(lines[0], flush=True)
    curves = {fmt: ([], []) for fmt in formats}
    known = read_data(args.data) if args.reuse else {}
    counts = {"measured": 0, "reused": 0}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        for photo in args.photos:
            name = os.path.basename(photo)
            reference = os.path.join(folder, "reference.png")
            run(["vips", "copy", photo, reference])
            for fmt in formats:
                qualities = sorted(set(sweep) | ({defaults[fmt]} if fmt in defaults else set()))
                ours = curve_points("imagepipe", args.imagepipe, reference, fmt, qualities, folder, name, known, args.data, counts)
                theirs = curve_points("vips", args.imagepipe, reference, fmt, qualities, folder, name, known, args.data, counts)
                curves[fmt][0].append(ours)
                curves[fmt][1].append(theirs)
                rate = bd_rate(sorted(ours[q] for q in sweep), sorted(theirs[q] for q in sweep))
                cpu_ours = sum(ours[q][2] for q in sweep) / len(sweep)
                cpu_vips = sum(theirs[q][2] for q in sweep) / len(sweep)
                line = f"{fmt:6} {os.path.basename(photo):24} {rate if rate else float('nan'):18.3f} {cpu_ours:11.3f} {cpu_vips:11.3f}"
                lines.append(line)
                print(line, flush=True)
    table = ["| format | BD-rate ours / vips | CPU s per encode, ours / vips | default Q | SSIMULACRA2 ours / vips | KiB ours / vips | CPU s ours / vips |",
             "|---|---|---|---|---|---|---|"]
    for fmt, (ours, theirs) in curves.items():
        rates = [bd_rate(sorted(o[q] for q in sweep), sorted(t[q] for q in sweep)) for o, t in zip(ours, theirs)]
        rates = [math.log(r) for r in rates if r]
        mean = math.exp(sum(rates) / len(rates)) if rates else float("nan")
        cpu_ours = sum(o[q][2] for o in ours for q in sweep) / (len(ours) * len(sweep))
        cpu_vips = sum(t[q][2] for t in theirs for q in sweep) / (len(theirs) * len(sweep))
        line = (f"{fmt}: BD-rate ours/vips {mean:.3f} (geometric mean over {len(rates)} photos); "
                f"CPU per encode {cpu_ours:.3f} s ours, {cpu_vips:.3f} s vips")
        default = defaults.get(fmt)
        qualities = sorted(set(sweep) | ({default} if default else set()))
        mine, vips = mean_curve(ours, qualities), mean_curve(theirs, qualities)
        cells = "| | | | |"
        if default:
            a = next(p for p in mine if p[0] == default)
            b = next(p for p in vips if p[0] == default)
            line += (f"; at Q{default} SSIMULACRA2 {a[1]:.1f} ours, {b[1]:.1f} vips, "
                     f"{a[2] / 1024:.1f} / {b[2] / 1024:.1f} KiB, {a[3]:.3f} / {b[3]:.3f} s CPU")
            cells = f"| {default} | {a[1]:.1f} / {b[1]:.1f} | {a[2] / 1024:.1f} / {b[2] / 1024:.1f} | {a[3]:.3f} / {b[3]:.3f} |"
        lines.append(line)
        print(line, flush=True)
        table.append(f"| {fmt} | **{mean:.3f}** | {cpu_ours:.3f} / {cpu_vips:.3f} {cells}")
        if args.report and default:
            summary = {"bd_rate": mean, "cpu_ours": cpu_ours, "cpu_vips": cpu_vips}
            plot(os.path.join(os.path.dirname(os.path.abspath(args.report)), f"rate-quality-{fmt}.png"), fmt, mine, vips, default, summary)
    load = (load_before, os.getloadavg(), (counts["measured"], counts["reused"]))
    targets = [float(t) for t in args.targets.split(",")]
    quality_table = target_table(curves, sweep, targets, defaults)
    print("\n".join(quality_table), flush=True)
    if args.report:
        write_report(args, sweep, defaults, formats, table, lines, quality_table, load)


def quality_for(curve, score):
    """The quality (interpolated) at which a mean curve [(quality, score, ...)] reaches `score`."""
    for (q0, s0, *_), (q1, s1, *_) in zip(curve, curve[1:]):
        if s0 <= score <= s1:
            return q0 + (0 if s1 == s0 else (score - s0) / (s1 - s0) * (q1 - q0))
    return None


def target_table(curves, sweep, targets, defaults):
    """Markdown: per format, our quality reaching each SSIMULACRA2 target (mean over the photos,
    from the sweep's qualities only, so that the default's own point does not move the answer),
    and the score the default quality reaches."""
    rows = ["| format | " + " | ".join(f"Q for {t:g}" for t in targets) + " | default Q: SSIMULACRA2 |",
            "|---|" + "---|" * len(targets) + "---|"]
    for fmt, (ours, _) in curves.items():
        curve = mean_curve(ours, sweep)
        cells = []
        for target in targets:
            quality = quality_for(curve, target)
            cells.append("–" if quality is None else f"{quality:.0f}")
        measured = mean_curve(ours, sorted(set(sweep) | ({defaults[fmt]} if fmt in defaults else set())))
        default = next((p for p in measured if p[0] == defaults.get(fmt)), None)
        rows.append(f"| {fmt} | " + " | ".join(cells) + (f" | {default[0]}: {default[1]:.1f} |" if default else " | |"))
    return rows


def write_report(args, sweep, defaults, formats, table, lines, quality_table, load):
    version = subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout.strip()
    with open(args.report, "w") as report:
        report.write("# Rate against quality: imagepipe and libvips\n\n")
        report.write(f"Made by `{args.command}` on {datetime.date.today().isoformat()}, {version}, SSIMULACRA2 from PyPI's "
                     f"`ssimulacra2` 0.3; photos: {', '.join(os.path.basename(p) for p in args.photos)}; qualities "
                     f"{','.join(map(str, sweep))}, and each format's default quality "
                     f"({', '.join(f'{f} {defaults[f]}' for f in formats if f in defaults)}: the service's `--format-quality` "
                     f"defaults). BD-rate: our bytes over vips' at equal SSIMULACRA2 (below 1: ours smaller), "
                     f"geometric mean over the photos; CPU: user + system seconds per encode, every thread, "
                     f"mean over the sweep. At the default quality: means over the photos (bytes geometric).\n\n")
        measured, reused = load[2]
        report.write(f"Load average (1, 5, 15 min) at the start {', '.join(f'{v:.1f}' for v in load[0])}, at the end "
                     f"{', '.join(f'{v:.1f}' for v in load[1])}, on {os.cpu_count()} cores; this run measured {measured} "
                     f"points and took {reused} from `--data`, measured by earlier runs. CPU seconds, not wall time, are "
                     f"what to compare.\n\n")
        report.write("\n".join(table) + "\n\n")
        report.write("Our quality that reaches each SSIMULACRA2 score (mean curve over the photos, interpolated), "
                     "and what the default quality reaches:\n\n" + "\n".join(quality_table) + "\n\n")
        if args.notes:
            with open(args.notes) as notes:
                report.write(notes.read().strip() + "\n\n")
        for fmt in formats:
            if fmt in defaults:
                report.write(f"![{fmt}: bytes against SSIMULACRA2](rate-quality-{fmt}.png)\n\n")
        report.write("Per photo, as printed:\n\n```\n" + "\n".join(lines) + "\n```\n")


if __name__ == "__main__":
    main()
