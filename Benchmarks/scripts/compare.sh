#!/usr/bin/env bash
# The side-by-side benchmark: `imagepipe` against vipsthumbnail, ImageMagick and Pillow on the same
# file lists, in one run, each tool a whole process timed by hyperfine. Two configurations:
#
# formats (issue 10): each output in its input's format
#   jpeg-thumb   jpeg/1920 (16 files)      -> 256 px JPEG thumbnails, quality 80
#   png-thumb    png/rgba-1920 (8 files)   -> 256 px PNG thumbnails
#   webp-thumb   webp/lossy-1920 (16)      -> 256 px WebP thumbnails, quality 80
#   png-full     jpeg/640 (16 files)       -> full decode, re-encoded as PNG
#
# jpeg-out (issue 24): eight sets of 4 to 16 files, every output a 256 px JPEG at quality 80 (an
# animation's first frame; alpha over white), against vipsthumbnail and Pillow only:
#   jpeg/orig jpeg/1920 jpeg/640 png/rgba-1920 png/rgb-640 webp/lossy-1920 webp/lossless-640
#   gif/anim-480
# and start-up: a 16x16 JPEG to a 256 px JPEG thumbnail, one file per process, STARTUP_RUNS
# (default 50) runs of imagepipe, vipsthumbnail and the C baseline each, median CPU ms (the
# issue's target: imagepipe <= 12 ms).
#
#   Benchmarks/scripts/compare.sh          # RUNS=3 CORPUS_DIR=/tmp/imagepipe-bench-corpus IMAGEPIPE=(built)
#   CONFIGS="jpeg-out" MEASURE_RUNS=5 Benchmarks/scripts/compare.sh   # one configuration only
#
# Every tool handles a whole set in one process, as a user's batch would, with the threads it
# chooses: imagepipe `fetch --concurrency 2` (both cores), vipsthumbnail and ImageMagick their own
# thread pools, Pillow one thread. Peak RSS and CPU seconds come from MEASURE_RUNS (default 3) extra
# runs of each under Benchmarks/python/measure.py (wait4's rusage): the median CPU, the largest peak.
# formats reports mean wall times, jpeg-out medians. The C baseline (Benchmarks/c/thumbnail_batch.c) is
# one thread doing imagepipe's job with the same libraries; it is compared in CPU seconds per
# image, which a busy neighbour on this shared machine does not inflate the way it does wall time.
#
# IMAGEPIPE=/path/to/binary skips the build and runs that binary (a stand-in honouring the fetch
# contract works too). BEFORE=/path/to/an/older/imagepipe adds that binary as the tool "before", in
# the same run, for a before/after figure (issue 18: the checks cost at most 3 %; "after / before"
# images/s is reported per set). The ratios are the last lines.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${RUNS:-3}"
STARTUP_RUNS="${STARTUP_RUNS:-50}"
MEASURE_RUNS="${MEASURE_RUNS:-3}"
CONFIGS="${CONFIGS:-formats jpeg-out}"
export CORPUS_DIR="${CORPUS_DIR:-/tmp/imagepipe-bench-corpus}"
MAKE_CORPUS="$ROOT/Benchmarks/scripts/make-corpus.sh"
WORK="$(mktemp -d /tmp/imagepipe-compare.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# --- what the run needs, installed only when missing -------------------------------------------
need=()
command -v vipsthumbnail >/dev/null || need+=(libvips-tools)
command -v mogrify >/dev/null || command -v magick >/dev/null || need+=(imagemagick)
command -v hyperfine >/dev/null || need+=(hyperfine)
for header in jpeglib.h png.h webp/encode.h gif_lib.h; do
  [[ -f /usr/include/$header || -f /usr/include/$(gcc -print-multiarch 2>/dev/null)/$header ]] || need+=(libjpeg-dev libpng-dev libwebp-dev libgif-dev)
done
if ((${#need[@]})); then
  echo "installing: ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(printf '%s\n' "${need[@]}" | sort -u) >/dev/null
fi
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow >&2
# ImageMagick 7 names its tools `magick mogrify`; Debian's 6 ships `mogrify`.
if command -v magick >/dev/null; then MOGRIFY=(magick mogrify); else MOGRIFY=(mogrify); fi

bash "$MAKE_CORPUS" >&2

# --- builds -------------------------------------------------------------------------------------
if [[ -z "${IMAGEPIPE:-}" ]]; then
  echo "building imagepipe (release)..." >&2
  # As `make demo` builds it (the Makefile's RELEASE_BUILD): start-up CPU depends on its flags.
  make -C "$ROOT" --no-print-directory release >&2
  IMAGEPIPE="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/imagepipe"
fi
C_BASELINE="$WORK/thumbnail_batch"
# shellcheck disable=SC2046
cc -O2 -o "$C_BASELINE" "$ROOT/Benchmarks/c/thumbnail_batch.c" $(pkg-config --cflags --libs libjpeg libpng libwebp) -lgif -lm
PILLOW=(python3 "$ROOT/Benchmarks/python/pillow_batch.py")
MEASURE=(python3 "$ROOT/Benchmarks/python/measure.py")

# --- one set: hyperfine over the four tools, then one measured run each, then the C baseline -----
# Results go to $WORK/results-CONFIG: "set tool images seconds peak_kib cpu_s".
TOOLS=()
# libvips writes PNG rows unfiltered by default; every other tool here (and libpng's default, which
# imagepipe and the C baseline use) picks a filter per row, which costs more CPU and makes smaller
# files. "all" gives vips the same job; VIPS_PNG_FILTER=none measures its default.
VIPS_PNG_FILTER="${VIPS_PNG_FILTER:-all}"
command_for() { # tool job format files...   (job: thumb|png|jpeg; output dir is $OUT, fresh per run)
  local tool=$1 job=$2 fmt=$3; shift 3
  local files=("$@")
  case $tool:$job in
    before:*) IMAGEPIPE="$BEFORE" command_for imagepipe "$job" "$fmt" "${files[@]}" ;;
    imagepipe:thumb) echo "$IMAGEPIPE fetch ${files[*]} -o \$OUT --thumbnail 256x256 --format $fmt --quality 80 --no-cache --concurrency 2 --json" ;;
    imagepipe:jpeg) echo "$IMAGEPIPE fetch ${files[*]} -o \$OUT --thumbnail 256x256 --format jpeg --quality 80 --no-cache --concurrency 2 --json" ;;
    imagepipe:png) echo "$IMAGEPIPE fetch ${files[*]} -o \$OUT --format png --no-cache --concurrency 2 --json" ;;
    vipsthumbnail:thumb)
      local opts="[Q=80,strip]"; [[ $fmt == png ]] && opts="[compression=6,filter=$VIPS_PNG_FILTER,strip]"
      echo "vipsthumbnail ${files[*]} -s 256 -o \"\$OUT/%s.$fmt$opts\"" ;;
    vipsthumbnail:jpeg) echo "vipsthumbnail ${files[*]} -s 256 -o \"\$OUT/%s.jpg[Q=80,strip]\"" ;;
    # A size no photo reaches, with ">" (shrink only): a full decode and re-encode in one process.
    vipsthumbnail:png) echo "vipsthumbnail ${files[*]} -s '100000x100000>' -o \"\$OUT/%s.png[compression=6,filter=$VIPS_PNG_FILTER,strip]\"" ;;
    imagemagick:thumb) echo "${MOGRIFY[*]} -path \$OUT -format $fmt -thumbnail 256x256 -quality 80 -define png:compression-level=6 ${files[*]}" ;;
    imagemagick:png) echo "${MOGRIFY[*]} -path \$OUT -format png -define png:compression-level=6 ${files[*]}" ;;
    pillow:thumb) echo "${PILLOW[*]} thumb 256 80 \$OUT ${files[*]}" ;;
    pillow:jpeg) echo "${PILLOW[*]} jpeg 256 80 \$OUT ${files[*]}" ;;
    pillow:png) echo "${PILLOW[*]} png 0 0 \$OUT ${files[*]}" ;;
  esac
}

run_set() { # config name job format corpus-subdir
  local config=$1; shift
  local name=$1 job=$2 fmt=$3 dir="$CORPUS_DIR/$4"
  local files=("$dir"/*)
  local count=${#files[@]}
  local json="$WORK/${name//\//_}.json"   # jpeg-out's set names hold a slash
  export OUT="$WORK/out"
  echo "== $name: ${#files[@]} files from $4 ($job, $fmt)" >&2
  local args=()
  for tool in "${TOOLS[@]}"; do args+=(-n "$tool" "$(command_for "$tool" "$job" "$fmt" "${files[@]}")"); done
  # --prepare empties the output folder, so no tool skips or appends to another's files.
  hyperfine --style basic --runs "$RUNS" --warmup 1 --prepare "rm -rf $OUT && mkdir -p $OUT" \
    --export-json "$json" "${args[@]}" >&2
  for tool in "${TOOLS[@]}"; do
    local seconds measured=""
    seconds="$(python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["results"] if x["command"]==sys.argv[2]][0]; print(r[sys.argv[3]])' "$json" "$tool" "$STAT")"
    for ((m = 0; m < MEASURE_RUNS; m++)); do
      rm -rf "$OUT" && mkdir -p "$OUT"
      measured+="$(bash -c "${MEASURE[*]} $(command_for "$tool" "$job" "$fmt" "${files[@]}")")"$'\n'
      [[ $tool == imagepipe || $tool == before ]] && check_outputs "$count"
    done
    echo "$name $tool $count $seconds $(median_cpu_max_peak <<< "$measured")" >> "$WORK/results-$config"
  done
  local c=""
  for ((m = 0; m < MEASURE_RUNS; m++)); do
    rm -rf "$OUT" && mkdir -p "$OUT"
    c+="$("$C_BASELINE" "$job" 256 80 "$OUT" "${files[@]}" | awk '{ print "peak_kib 0 cpu_s", $4 }')"$'\n'
  done
  echo "$name C $count - - $(median_cpu_max_peak <<< "$c" | awk '{ print $2 }')" >> "$WORK/results-$config"
}

# Start-up: one 16x16 JPEG per process, each tool STARTUP_RUNS times; "startup TOOL MEDIAN_CPU_MS"
# lines go to $WORK/startup. CPU (user + sys of the whole process), not wall: neighbours on a shared
# machine stretch wall time, not CPU time.
run_startup() {
  local tiny="$WORK/tiny.jpg"
  python3 -c 'import random,sys; from PIL import Image; r=random.Random(1); im=Image.new("RGB",(16,16)); im.putdata([tuple(r.randrange(256) for _ in range(3)) for _ in range(256)]); im.save(sys.argv[1], quality=90)' "$tiny"
  export OUT="$WORK/out"
  echo "== startup: $STARTUP_RUNS runs each on a 16x16 JPEG" >&2
  local tool command cpu
  for tool in imagepipe vipsthumbnail C; do
    case $tool in
      imagepipe) command="$IMAGEPIPE fetch $tiny -o \$OUT --thumbnail 256x256 --format jpeg --quality 80 --no-cache" ;;
      vipsthumbnail) command="vipsthumbnail $tiny -s 256 -o \"\$OUT/%s.jpg[Q=80,strip]\"" ;;
      C) command="$C_BASELINE jpeg 256 80 \$OUT $tiny" ;;
    esac
    cpu=""
    for ((m = 0; m < STARTUP_RUNS; m++)); do
      rm -rf "$OUT" && mkdir -p "$OUT"
      cpu+="$(bash -c "${MEASURE[*]} $command")"$'\n'
    done
    echo "startup $tool $(python3 -c 'import statistics,sys; print(f"{statistics.median(float(l.split()[3]) for l in sys.stdin if l.strip()) * 1000:.2f}")' <<< "$cpu")" >> "$WORK/startup"
  done
}

# measure.py lines ("peak_kib N cpu_s S") in, "PEAK_KIB CPU_S" out: the largest peak, the median CPU.
median_cpu_max_peak() {
  python3 -c 'import statistics,sys; rows=[l.split() for l in sys.stdin if l.strip()]; print(max(int(r[1]) for r in rows), statistics.median(float(r[3]) for r in rows))'
}

# A tool that writes nothing would look fast: count what imagepipe actually wrote.
check_outputs() { # expected
  local written; written="$(find "$OUT" -type f | wc -l)"
  if ((written != $1)); then
    echo "imagepipe wrote $written files, expected $1" >&2
    exit 1
  fi
}

for config in $CONFIGS; do
  case $config in
    formats)
      TOOLS=(imagepipe ${BEFORE:+before} vipsthumbnail imagemagick pillow) STAT=mean
      run_set formats jpeg-thumb thumb jpeg jpeg/1920
      run_set formats png-thumb thumb png png/rgba-1920
      run_set formats webp-thumb thumb webp webp/lossy-1920
      run_set formats png-full png png jpeg/640 ;;
    jpeg-out)
      TOOLS=(imagepipe ${BEFORE:+before} vipsthumbnail pillow) STAT=median
      for set in jpeg/orig jpeg/1920 jpeg/640 png/rgba-1920 png/rgb-640 webp/lossy-1920 webp/lossless-640 gif/anim-480; do
        run_set jpeg-out "$set" jpeg jpeg "$set"
      done
      run_startup ;;
    *) echo "unknown configuration $config (formats, jpeg-out)" >&2; exit 2 ;;
  esac
done

# --- report -------------------------------------------------------------------------------------
for config in $CONFIGS; do
python3 - "$WORK/results-$config" "$config" "$WORK/startup" <<'PY'
import collections, sys
rows = [line.split() for line in open(sys.argv[1])]
config = sys.argv[2]
sets = list(dict.fromkeys(r[0] for r in rows))
tools = list(dict.fromkeys(r[1] for r in rows if r[1] != "C"))
by = {(r[0], r[1]): r for r in rows}
width = max(11, max(len(s) for s in sets))
print()
print(f"== {config}")
print(f"{'set':<{width}} {'tool':<14} {'images/s':>9} {'peak RSS MiB':>13} {'CPU s/image':>12}")
total = collections.defaultdict(lambda: [0, 0.0, 0, 0.0])  # images, seconds, peak KiB, cpu s
for s in sets:
    for t in tools + ["C"]:
        _, _, n, sec, peak, cpu = by[(s, t)]
        n, cpu = int(n), float(cpu)
        acc = total[t]
        acc[0] += n; acc[3] += cpu
        if sec != "-":
            acc[1] += float(sec); acc[2] = max(acc[2], int(peak))
            print(f"{s:<{width}} {t:<14} {n / float(sec):9.1f} {int(peak) / 1024:13.1f} {cpu / n:12.4f}")
        else:
            print(f"{s:<{width}} {'C (1 thread)':<14} {'':>9} {'':>13} {cpu / n:12.4f}")
print()
print("all sets together (images / summed seconds; peak RSS = largest of the sets):")
for t in tools:
    n, sec, peak, cpu = total[t]
    print(f"  {t:<14} {n / sec:9.1f} images/s  {peak / 1024:7.1f} MiB  {cpu / n:.4f} CPU s/image")
print(f"  {'C (1 thread)':<14} {'':>9}            {'':>7}      {total['C'][3] / total['C'][0]:.4f} CPU s/image")
rate = {t: total[t][0] / total[t][1] for t in tools}
ip = total["imagepipe"]
print()
if "before" in tools:
    for s in sets:
        speed = {t: int(by[(s, t)][2]) / float(by[(s, t)][3]) for t in ("imagepipe", "before")}
        print(f"{s:<{width}} after / before images/s: {speed['imagepipe'] / speed['before']:.3f}x")
    print(f"{'all sets':<{width}} after / before images/s: {rate['imagepipe'] / rate['before']:.3f}x")
    print()
if config == "jpeg-out":
    # Issue 24's targets: every set >= 2x both, all >= 2.5x both, CPU <= 1.3x C per set, RSS <= vips.
    print(f"{'set':<{width}} {'vs vips':>8} {'vs Pillow':>10} {'CPU vs C':>9} {'RSS vs vips':>12}")
    for s in sets:
        speed = {t: int(by[(s, t)][2]) / float(by[(s, t)][3]) for t in tools}
        cpu = float(by[(s, "imagepipe")][5]) / float(by[(s, "C")][5])
        rss = int(by[(s, "imagepipe")][4]) / int(by[(s, "vipsthumbnail")][4])
        print(f"{s:<{width}} {speed['imagepipe'] / speed['vipsthumbnail']:7.2f}x {speed['imagepipe'] / speed['pillow']:9.2f}x {cpu:8.2f}x {rss:11.2f}x")
    print(f"{'all sets':<{width}} {rate['imagepipe'] / rate['vipsthumbnail']:7.2f}x {rate['imagepipe'] / rate['pillow']:9.2f}x")
    print("targets: every set >= 2x vips and Pillow, all sets >= 2.5x both, CPU <= 1.3x C, RSS <= 1x vips")
    startup = {r[1]: float(r[2]) for r in (line.split() for line in open(sys.argv[3]))}
    print()
    print("start-up, 16x16 JPEG -> 256 px JPEG q80, median CPU ms per process (target: imagepipe <= 12):")
    print("  " + "  ".join(f"{t} {startup[t]:.2f}" for t in ("imagepipe", "vipsthumbnail", "C")))
else:
    print(f"imagepipe / vipsthumbnail images/s: {rate['imagepipe'] / rate['vipsthumbnail']:.2f}x (target >= 2)")
    print(f"imagepipe / Pillow images/s: {rate['imagepipe'] / rate['pillow']:.2f}x (target >= 2.5)")
    print(f"imagepipe / vipsthumbnail peak RSS: {ip[2] / total['vipsthumbnail'][2]:.2f}x (target <= 1)")
    print(f"imagepipe / C CPU s per image: {(ip[3] / ip[0]) / (total['C'][3] / total['C'][0]):.2f}x (target <= 1.2)")
PY
done
