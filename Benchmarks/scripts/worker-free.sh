#!/usr/bin/env bash
# Issue 41's figure: with `imagepipe serve --workers 1`, the milliseconds from an expensive request's
# 503 (its --request-timeout) or its client's disconnect until the worker answers a cheap request,
# per output format (target: within 100 ms). See Benchmarks/python/worker_free.py.
#
#   Benchmarks/scripts/worker-free.sh [--formats webp,avif,png,jpg,gif,jxl] [--runs 3] [--timeout 3]
#                                     [--disconnect 2] [--size 7000]       # IMAGEPIPE=(release build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ -z "${IMAGEPIPE:-}" ]]; then
  make -C "$ROOT" release >/dev/null
  IMAGEPIPE="$ROOT/.build/release/imagepipe"
fi
exec python3 "$ROOT/Benchmarks/python/worker_free.py" "$IMAGEPIPE" "$@"
