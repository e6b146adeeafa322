#!/usr/bin/env bash
# Runs the fuzz targets built into .build-fuzz (see `make fuzz`), one at a time, each for
# FUZZ_SECONDS (default 60), at the lowest CPU priority. Usage: Fuzz/run.sh [target...]
# FUZZ_JOBS runs that many fuzzing processes per target at once (default 1); FUZZ_BIN runs
# binaries from another folder (a copy, so a rebuild cannot replace them mid-run); FUZZ_SUMMARY
# names the summary file (default .build-fuzz/work/summary.txt). Runs of one target may overlap:
# they share its corpus and add to its executions under a lock.
#
# Per target, in .build-fuzz/work/<target>/ (ignored by git, kept between runs so campaigns add
# up): corpus/ (the working corpus), findings/ (every crash, leak and reproduced timeout or OOM
# input; unreproduced ones move to findings/not-reproduced/), logs/, and executions (the running
# total over all runs). Seeds come from Tests/Fixtures (images chosen by their magic bytes, no
# longer than the target's -max_len), the small images fuzz-seeds makes (FuzzSeeds.swift),
# Fuzz/seeds/<target>/ and the replayed findings in Tests/Fixtures/fuzz/. They are merged into
# the corpus first with libFuzzer's crash-resilient -merge=1: a seed that fails again alone is
# reported as a finding and left out.
#
# libFuzzer runs in fork mode (-fork=FUZZ_JOBS child processes) and goes on past timeouts
# and OOMs, which a `nice` process starved by other work reports for inputs that are not slow.
# Afterwards each timeout or OOM input is replayed alone under the same bounds: only one that
# fails again is a finding. A crash or leak stops libFuzzer, which restarts on its corpus for the
# rest of the target's time (at most FUZZ_MAX_RESTARTS times).
#
# Ends with a table (executions, coverage, peak RSS, findings per target) and a list of findings,
# also written to the summary file. Exit status 1 when anything was found.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
max_restarts=${FUZZ_MAX_RESTARTS:-20}
bin=${FUZZ_BIN:-.build-fuzz/release}
work=.build-fuzz/work
summary=${FUZZ_SUMMARY:-$work/summary.txt}
jobs=${FUZZ_JOBS:-1}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(png jpeg webp gif avif heif tiff bmp jxl svg transform-spec data-url disk-cache-name)

# A timeout is an input taking over 2 s; an OOM is over 512 MiB resident, or one allocation over
# 256 MiB (under the targets' limits no image needs a tenth of that, and a single huge allocation
# is reported with its stack, which a resident-memory overrun is not). The Swift runtime's own
# backtracer would fight ASan for the crash, so it is off.
export SWIFT_BACKTRACE=enable=no
# A small quarantine, and freed memory returned to the system, keep ASan's own share of the 512 MiB
# small (a JPEG corpus replay peaks at 124 MB instead of 201 MB with ASan's defaults).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16:allocator_release_to_os_interval_ms=500:malloc_context_size=30:handle_abort=1}
# What librsvg's libraries keep for the process is not a leak of ours (Fuzz/lsan-suppressions.txt).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan-suppressions.txt}
common=(-timeout=2 -rss_limit_mb=512 -malloc_limit_mb=256)
fork_options=(-fork="$jobs" -ignore_timeouts=1 -ignore_ooms=1 -ignore_crashes=0)

max_len() {
  case $1 in
    png|gif) echo 65536 ;;
    # Longer inputs only add entropy-coded data: the seeds are 64 bytes to 6 KB.
    jpeg|webp) echo 8192 ;;
    avif|heif) echo 65536 ;;
    tiff|bmp) echo 65536 ;;
    # JPEG XL seeds are 30 bytes to 2 KB; SVG documents stay small under the harness's limits.
    jxl|svg) echo 16384 ;;
    transform-spec) echo 512 ;;
    data-url) echo 8192 ;;
    disk-cache-name) echo 2048 ;;
  esac
}

# The magic bytes (hex) of the images a coder target is seeded with.
magic() {
  case $1 in
    png) echo '^89504e47' ;;
    jpeg) echo '^ffd8ff' ;;
    webp) echo '^52494646........57454250' ;;
    gif) echo '^474946' ;;
    # Classic and BigTIFF, both byte orders.
    tiff) echo '^(49492a00|4d4d002a|49492b00|4d4d002b)' ;;
    # BMP, and icons and cursors.
    bmp) echo '^(424d|00000100|00000200)' ;;
    jxl) echo '^(ff0a|0000000c4a584c20)' ;;
    *) echo '^$' ;;
  esac
}

# AVIF and HEIF seeds are made here from PngSuite images by the reference encoders (the
# repository stores no such files): stills at 8 and 10 bits, alpha, a sequence, a thumbnail item.
make_seeds() {
  local target=$1 out=$2 png=Tests/Fixtures/corpus/pngsuite
  case $target in
    avif)
      command -v avifenc >/dev/null || return 0
      avifenc -s 10 "$png/basn2c08.png" "$out/rgb8.avif" >/dev/null 2>&1
      avifenc -s 10 -d 10 -y 420 "$png/basn6a08.png" "$out/alpha10.avif" >/dev/null 2>&1
      avifenc -s 10 --irot 1 --imir 0 -y 400 "$png/basn0g08.png" "$out/gray-rotated.avif" >/dev/null 2>&1
      avifenc -s 10 "$png/basn2c08.png" "$png/basn6a08.png" "$out/sequence.avif" >/dev/null 2>&1 ;;
    heif)
      command -v heif-enc >/dev/null || return 0
      heif-enc -q 50 "$png/basn2c08.png" -o "$out/rgb.heic" >/dev/null 2>&1
      heif-enc -q 50 -t 16 "$png/basn6a08.png" -o "$out/alpha-thumbnail.heic" >/dev/null 2>&1 ;;
  esac
  return 0
}

# "reason at Sources/file:line function" for a libFuzzer/ASan report: the same bug found twice
# reads the same, so the summary can count it once.
describe() {
  local log=$1 reason frame file symbol
  reason=$(grep -m1 -oE 'Fatal error: .{0,160}' "$log")
  [ -n "$reason" ] || reason=$(grep -m1 -oE 'Swift runtime failure: [^/]*' "$log" | sed -E 's/ +$//')
  [ -n "$reason" ] || reason=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): .*' "$log" \
    | sed -E 's/^ERROR: //; s/ on (unknown )?address.*//; s/ +$//')
  [ -n "$reason" ] || reason="unknown failure"
  # The first Swift or C frame with a line in ImagePipe's sources, the fuzz harness last.
  frame=$(grep -E '^ +#[0-9]+ 0x[0-9a-f]+ in [^ ]+ /[^ ]*/Sources/[^ ]+:[0-9]+' "$log" | grep -v '/Fuzz/Sources/' | head -1)
  [ -n "$frame" ] || frame=$(grep -m1 -E '^ +#[0-9]+ 0x[0-9a-f]+ in [^ ]+ /[^ ]*/Sources/[^ ]+:[0-9]+' "$log")
  if [ -n "$frame" ]; then
    symbol=$(sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in ([^ ]+) .*/\1/' <<<"$frame")
    file=$(sed -E 's/.* \/[^ ]*\/(Sources\/[^ ]+:[0-9]+)(:[0-9]+)?.*/\1/' <<<"$frame")
    symbol=$(swift demangle --simplified --compact "$symbol" 2>/dev/null || echo "$symbol")
    echo "$reason at $file ${symbol:0:100}"
  else
    echo "$reason"
  fi
}

# What a replay's log shows: oom, timeout, leak or crash.
failure_kind() {
  if grep -qE 'out-of-memory|rss limit' "$1"; then echo oom
  elif grep -q 'ERROR: libFuzzer: timeout' "$1"; then echo timeout
  elif grep -q LeakSanitizer "$1"; then echo leak
  else echo crash
  fi
}

kind_of() {
  case $(basename "$1") in
    crash-*) echo crash ;; leak-*) echo leak ;; timeout-*) echo timeout ;; oom-*) echo oom ;; *) echo crash ;;
  esac
}

findings_list=$(mktemp)
table=$(mktemp)
trap 'rm -f "$findings_list" "$table"' EXIT
printf '%-16s %12s %8s %7s %8s %9s %11s %8s %s\n' target executions exec/s cov ft peak-rss total-exec findings unreproduced >"$table"
found_any=0

for target in "${targets[@]}"; do
  binary=$bin/fuzz-$target
  if [ ! -x "$binary" ]; then
    echo "fuzz: no $binary; run 'make fuzz' (it builds first)" >&2
    exit 2
  fi
  dir=$work/$target
  mkdir -p "$dir/corpus" "$dir/findings/not-reproduced" "$dir/logs" "$dir/scratch"
  export FUZZ_SCRATCH=$PWD/$dir/scratch
  max=$(max_len "$target")
  options=("${common[@]}" -max_len="$max")
  [ -f "Fuzz/dictionaries/$target.dict" ] && options+=(-dict="Fuzz/dictionaries/$target.dict")
  stamp=$(date -u +%Y%m%dT%H%M%S)-$$

  # Seeds, named by content, in a folder of this run's own.
  seeds_dir=$(mktemp -d "$dir/seeds.XXXXXX")
  mkdir "$seeds_dir/made"
  "$bin/fuzz-seeds" "$target" "$seeds_dir/made" || exit 2
  pattern=$(magic "$target")
  {
    find Tests/Fixtures -type f -size -$((max + 1))c ! -path 'Tests/Fixtures/fuzz/*' -print0 \
      | while IFS= read -r -d '' file; do
          head -c 12 "$file" | od -An -tx1 | tr -d ' \n' | grep -qE "$pattern" && printf '%s\0' "$file"
        done
    find "$seeds_dir/made" -type f -print0
    [ -d "Fuzz/seeds/$target" ] && find "Fuzz/seeds/$target" -type f -print0
    [ -d "Tests/Fixtures/fuzz/$target" ] && find "Tests/Fixtures/fuzz/$target" -type f -print0
  } | while IFS= read -r -d '' file; do
    cp "$file" "$seeds_dir/$(sha1sum <"$file" | cut -c1-40)"
  done
  make_seeds "$target" "$seeds_dir"
  rm -r "$seeds_dir/made"
  seeds=$(find "$seeds_dir" -type f | wc -l)

  echo "=== fuzz-$target: merging $seeds seeds into $dir/corpus"
  merge_log=$dir/logs/$stamp-merge.log
  nice -n 19 "$binary" "${options[@]}" -merge=1 -artifact_prefix="$dir/findings/" "$dir/corpus" "$seeds_dir" >"$merge_log" 2>&1
  findings=0 unreproduced=0
  # Seeds that failed in the merge: each is replayed alone, and kept as a finding if it fails again.
  while IFS= read -r seed; do
    [ -n "$seed" ] || continue
    log=$dir/logs/$stamp-seed-$(basename "$seed").log
    if "$binary" "${options[@]}" "$seed" >"$log" 2>&1; then
      unreproduced=$((unreproduced + 1))
      continue
    fi
    kind=$(failure_kind "$log")
    artifact=$dir/findings/$kind-$(basename "$seed")
    cp "$seed" "$artifact"
    printf '%s\t%s\t%s\t%s\t%s\n' "$target" "$kind (seed)" "$(stat -c %s "$seed")" "$artifact" "$(describe "$log")" >>"$findings_list"
    findings=$((findings + 1))
  done < <(grep -oE "MERGE-INNER: '[^']+' caused a failure" "$merge_log" | sed -E "s/MERGE-INNER: '(.*)' caused a failure/\1/" | sort -u)
  rm -r "$seeds_dir"

  execs=0 rss=0 cov=0 ft=0 restarts=0
  start=$SECONDS
  while :; do
    remaining=$((seconds - (SECONDS - start)))
    [ "$remaining" -ge 2 ] || break
    log=$dir/logs/$stamp-run-$restarts.log
    echo "=== fuzz-$target: fuzzing for ${remaining}s (log: $log)"
    # GNU time's %M: the largest resident size among libFuzzer and its children, in KB.
    nice -n 19 /usr/bin/time -f '%M' -o "$log.rss" "$binary" "${options[@]}" "${fork_options[@]}" \
      -max_total_time="$remaining" -artifact_prefix="$dir/findings/" "$dir/corpus" >"$log" 2>&1
    status=$?
    # Fork mode's status lines: "#EXECUTIONS: cov: N ft: N corp: N exec/s N oom/timeout/crash: …".
    run_execs=$(grep -oE '^#[0-9]+: cov:' "$log" | grep -oE '[0-9]+' | tail -1)
    run_kb=$(grep -oE '^[0-9]+$' "$log.rss" 2>/dev/null | tail -1)
    run_rss=$(( ${run_kb:-0} / 1024 ))
    execs=$((execs + ${run_execs:-0}))
    [ "$run_rss" -gt "$rss" ] && rss=$run_rss
    line=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    if [ -n "$line" ]; then
      read -r _ run_cov _ run_ft <<<"$line"
      [ "$run_cov" -gt "$cov" ] && cov=$run_cov
      [ "$run_ft" -gt "$ft" ] && ft=$run_ft
    fi
    [ "$status" -eq 0 ] && break
    # Fork mode reached its time limit: its status only repeats the last child's, which may have
    # been a timeout or OOM (replayed below). A crash or leak stops it before that line.
    grep -qE '^INFO: fuzzed for [0-9]+ seconds, wrapping up soon' "$log" && break
    artifact=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | sed 's/Test unit written to //')
    if [ -n "$artifact" ]; then
      case $(kind_of "$artifact") in
        timeout|oom) ;; # replayed below with the others
        *)
          printf '%s\t%s\t%s\t%s\t%s\n' "$target" "$(kind_of "$artifact")" "$(stat -c %s "$artifact")" "$artifact" "$(describe "$log")" >>"$findings_list"
          findings=$((findings + 1)) ;;
      esac
    else
      printf '%s\t%s\t%s\t%s\t%s\n' "$target" "exit $status" 0 "$log" "libFuzzer stopped with no input saved" >>"$findings_list"
      findings=$((findings + 1))
      break
    fi
    restarts=$((restarts + 1))
    [ "$restarts" -lt "$max_restarts" ] || break
  done

  # Timeouts and OOMs, replayed alone at normal priority (three times, the bounds unchanged): one
  # that passes was the machine's load, not the input, and moves to findings/not-reproduced/.
  while IFS= read -r -d '' artifact; do
    log=$dir/logs/$stamp-replay-$(basename "$artifact").log
    if "$binary" "${options[@]}" -runs=3 "$artifact" >"$log" 2>&1; then
      mv "$artifact" "$dir/findings/not-reproduced/" 2>/dev/null && unreproduced=$((unreproduced + 1))
    elif [ ! -f "$artifact" ]; then
      continue # an overlapping run of this target has replayed it
    else
      printf '%s\t%s\t%s\t%s\t%s\n' "$target" "$(failure_kind "$log")" "$(stat -c %s "$artifact")" "$artifact" "$(describe "$log")" >>"$findings_list"
      findings=$((findings + 1))
    fi
  done < <(find "$dir/findings" -maxdepth 1 -type f \( -name 'timeout-*' -o -name 'oom-*' \) -print0)
  elapsed=$((SECONDS - start))
  total=$(
    exec 9>>"$dir/executions.lock"
    flock 9
    sum=$(( $(cat "$dir/executions" 2>/dev/null || echo 0) + execs ))
    echo "$sum" >"$dir/executions"
    echo "$sum"
  )
  [ "$findings" -gt 0 ] && found_any=1
  printf '%-16s %12d %8d %7d %8d %6d MB %11d %8d %d\n' "$target" "$execs" $((execs / (elapsed > 0 ? elapsed : 1))) \
    "$cov" "$ft" "$rss" "$total" "$findings" "$unreproduced" >>"$table"
done

{
  echo
  echo "fuzz: ${seconds}s per target; cov = edges, ft = features (libFuzzer's final figures);"
  echo "total-exec = executions over every run kept in .build-fuzz/work; unreproduced = timeouts,"
  echo "OOMs and failed seeds that passed when replayed alone (kept in findings/not-reproduced/)"
  cat "$table"
  if [ -s "$findings_list" ]; then
    echo
    echo "findings, one line per distinct failure (times found, smallest input); reproduce one with"
    echo "  SWIFT_BACKTRACE=enable=no $bin/fuzz-<target> ${common[*]} <file>"
    # Grouped by target and description (allocation sizes aside); the smallest input is shown.
    sort -t $'\t' -k1,1 -k3,3n "$findings_list" | awk -F '\t' '
      { desc = $5; gsub(/malloc\([0-9]+\)/, "malloc", desc); key = $1 FS desc
        if (!(key in first)) { first[key] = $0; order[++n] = key } count[key]++ }
      END { for (i = 1; i <= n; i++) { split(first[order[i]], f, FS)
              printf "%s: %s x%d, %d B %s\n    %s\n", f[1], f[2], count[order[i]], f[3], f[4], f[5] } }'
    
  fi
} | tee "$summary"
exit $found_any
