#!/usr/bin/env bash
# Builds and runs the cache benchmark (Benchmarks/Sources/cache-bench) in release mode. Extra
# arguments go to the benchmark (e.g. `--ops 4000000`). Run it on an otherwise idle machine: the
# 2-thread figures need 2 free cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
swift build -c release --package-path "$root/Benchmarks" --product cache-bench 2>&1 | grep -E "error|warning|Build" || true
"$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/cache-bench" "$@"
