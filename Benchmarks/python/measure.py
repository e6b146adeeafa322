"""Runs one command and prints its children's peak RSS and CPU time: "peak_kib N cpu_s S".

hyperfine gives wall time only; peak RSS and CPU seconds come from wait4's rusage, which covers
the whole process (every thread), so a multi-threaded tool's CPU is counted in full.
"""
import os
import subprocess
import sys


def main() -> None:
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen(sys.argv[1:], stdout=devnull)
        _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"measure.py: {sys.argv[1]} exited with status {os.waitstatus_to_exitcode(status)}")
    print(f"peak_kib {usage.ru_maxrss} cpu_s {usage.ru_utime + usage.ru_stime:.6f}")


if __name__ == "__main__":
    main()
