"""Two builds of `imagepipe` side by side on the bench corpus: the cost of a change in one run.

    python3 Benchmarks/python/ab_thumbnails.py BEFORE AFTER [--rounds N] [--corpus DIR]

Each set is thumbnailed as `compare.sh` does it (`fetch … --thumbnail 256x256 --no-cache`), by
BEFORE and AFTER in alternation, so a busy neighbour slows both alike. Reports the medians of
wall time and of CPU seconds (every thread, from wait4's rusage) and AFTER / BEFORE for each; on
this shared machine the CPU ratio is the one to read.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

SETS = [
    ("jpeg/1920", "jpeg"),
    ("png/rgba-1920", "png"),
    ("webp/lossy-1920", "webp"),
    ("gif/anim-480", "gif"),
]


def run_once(binary: str, files: list[str], fmt: str, out: str, extra: list[str] = []) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `fetch` thumbnailing `files`, with `extra` arguments."""
    shutil.rmtree(out, ignore_errors=True)
    command = [binary, "fetch", *files, "-o", out, "--thumbnail", "256x256", "--format", fmt,
               "--quality", "80", "--no-cache", "--concurrency", "2", "--json", *extra]
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen(command, stdout=devnull)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{binary} exited with status {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--corpus", default=os.environ.get("CORPUS_DIR", "/tmp/imagepipe-bench-corpus"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="imagepipe-ab.")
    try:
        print(f"{'set':<18}{'before cpu s':>13}{'after cpu s':>13}{'cpu ratio':>11}{'wall ratio':>12}")
        cpu_ratios = []
        for folder, fmt in SETS:
            directory = os.path.join(args.corpus, folder)
            files = sorted(os.path.join(directory, name) for name in os.listdir(directory))
            results = {"before": [], "after": []}
            run_once(args.before, files, fmt, os.path.join(work, "warm"))
            run_once(args.after, files, fmt, os.path.join(work, "warm"))
            for round_index in range(args.rounds):
                order = ["before", "after"] if round_index % 2 == 0 else ["after", "before"]
                for name in order:
                    results[name].append(run_once(getattr(args, name), files, fmt, os.path.join(work, name)))
            cpu = {name: statistics.median(r[1] for r in runs) for name, runs in results.items()}
            wall = {name: statistics.median(r[0] for r in runs) for name, runs in results.items()}
            cpu_ratios.append(cpu["after"] / cpu["before"])
            print(f"{folder:<18}{cpu['before']:>13.3f}{cpu['after']:>13.3f}"
                  f"{cpu['after'] / cpu['before']:>11.3f}{wall['after'] / wall['before']:>12.3f}")
        print(f"geometric mean of CPU ratios: {statistics.geometric_mean(cpu_ratios):.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
