#!/usr/bin/env bash
# Builds and runs the cache benchmark (Benchmarks/Sources/cache-bench) in release mode. Extra
# arguments go to the benchmark (e.g. `--ops 4000000`). Run it on an otherwise idle machine: the
# 2-thread figures need 2 free cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
# A failed build stops here: running the binary an earlier build left behind would report figures
# for other code.
if ! log=$(swift build -c release --package-path "$root/Benchmarks" --product cache-bench 2>&1); then
    echo "$log" >&2
    echo "run-cache-bench: the build failed; no figures" >&2
    exit 1
fi
grep -E "warning:" <<<"$log" >&2 || true
"$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/cache-bench" "$@"
