#!/usr/bin/env bash
# Builds and runs the cache benchmark in release mode. Extra arguments go to the benchmark
# (e.g. `--ops 4000000`). Run it on an otherwise idle machine: the 2-thread figures need 2 free cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
swift build -c release --package-path "$here/cache-bench" 2>&1 | grep -E "error|warning|Compiling|Build" || true
"$here/cache-bench/.build/release/cache-bench" "$@"
