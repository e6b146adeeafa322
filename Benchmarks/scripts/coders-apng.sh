#!/usr/bin/env bash
# Decode-every-frame throughput of CodersPNG's APNG (release build) against Pillow, on the same
# APNGs (written by Pillow: Benchmarks/python/make_apng_set.py), one process and one thread each,
# files per CPU second, best of two alternated runs per file. Every frame is first compared with
# Pillow's (they must be equal).
#   Benchmarks/scripts/coders-apng.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROUNDS="${1:-20}"
SET=.build/apng-bench-set
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install --quiet pillow
python3 Benchmarks/python/make_apng_set.py "$SET"
swift build -c release --package-path Benchmarks --product coders-apng-bench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/coders-apng-bench"
# Same pixels first: every frame of every file against Pillow's.
mkdir -p "$SET/frames"
"$BENCH" --dump "$SET/frames" "$SET"/*.png
python3 Benchmarks/python/pillow_apng.py --compare "$SET/frames" "$SET"/*.png
printf '%-18s %14s %14s %7s\n' file "swift img/s" "Pillow img/s" ratio
for file in "$SET"/*.png; do
  best_p=0 best_s=0
  for _ in 1 2; do
    p=$(python3 Benchmarks/python/pillow_apng.py "$ROUNDS" "$file" | cut -d' ' -f1)
    s=$("$BENCH" "$ROUNDS" "$file" | cut -d' ' -f1)
    best_p=$(awk -v a="$best_p" -v b="$p" 'BEGIN{print (b>a)?b:a}')
    best_s=$(awk -v a="$best_s" -v b="$s" 'BEGIN{print (b>a)?b:a}')
  done
  printf '%-18s %14s %14s %7s\n' "$(basename "$file")" "$best_s" "$best_p" "$(awk -v s="$best_s" -v p="$best_p" 'BEGIN{printf "%.2f", s/p}')"
done
