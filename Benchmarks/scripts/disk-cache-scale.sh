#!/usr/bin/env bash
# DiskCache with 10k, 100k and 1M small entries: store, lookup, index build, trims and how often
# writes trigger them (Benchmarks/Sources/cache-bench/DiskScaleBench.swift). Needs about 4.5 GB
# free under DIR (default /tmp) for the 1M run; every entry is removed afterwards.
#   Benchmarks/scripts/disk-cache-scale.sh [--sizes 10000,100000,1000000] [--dir DIR] [--lookups N]
set -euo pipefail
exec "$(dirname "$0")/cache.sh" --disk-scale "$@"
