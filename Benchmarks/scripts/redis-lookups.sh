#!/usr/bin/env bash
# Issue 26's benchmark, in one run against one redis-server this script starts on a free loopback
# port (no persistence):
#
# 1. Warm hits: RedisImageCache.entry(forKey:) (the lookup RedisSharedLoader makes for every
#    request: a pipelined GET, header check, the value kept in hiredis's buffer) from 16 tasks, against
#    `redis-benchmark -t set,get` GETs of a value of the same length (the entry's whole value, read
#    back with STRLEN) at 16 clients on the same server, alternating ROUNDS times. The plugin runs
#    with 16 connections (as many as redis-benchmark's clients) and with its default 4. Target:
#    >= 0.8x redis-benchmark's GETs/s.
#
# 2. The p99 a Redis lookup adds to a served request: redis-bench's ImageServer (the server
#    `imagepipe serve` runs, with --no-cache: no result or source cache, so every request loads
#    its source and processes it) under wrk (Benchmarks/lua/rotate-urls.lua over 32 sources),
#    alternating two URL sets that differ only in where the source comes from:
#      redis: http://ORIGIN/imgN.png, every one stored in Redis by a warm-up pass, then the origin
#             is stopped, so each request is a Redis hit (a miss would answer 5xx);
#      local: local:///imgN.png, the same bytes read from the page cache.
#    Why this comparison: both sides decode, resize (w:64) and encode the same source, so the
#    difference is the source's way in: a Redis GET against a file read, the cheapest local
#    answer that still does the work. Answering from the result cache instead would also drop the
#    decode and encode, which a shared source tier never saves. Concurrency 2 (the cores), so the
#    figures are service times, not queueing.
#
#   Benchmarks/scripts/redis-lookups.sh   # ROUNDS=3 LOOKUP_SECONDS=5 PAYLOAD=16384
#                                         # GET_REQUESTS=200000 DURATION=15 WRK_CONNECTIONS=2
#
# Installs what it lacks (apt: redis-server, redis-tools, wrk); never part of `make test`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ROUNDS="${ROUNDS:-3}"
LOOKUP_SECONDS="${LOOKUP_SECONDS:-5}"
PAYLOAD="${PAYLOAD:-16384}"
GET_REQUESTS="${GET_REQUESTS:-200000}"
DURATION="${DURATION:-15}"
WRK_CONNECTIONS="${WRK_CONNECTIONS:-2}"
CONCURRENCY=16
SOURCES=32
WORK="$(mktemp -d /tmp/imagepipe-redis-bench.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v redis-benchmark >/dev/null || need+=(redis-tools)
command -v wrk >/dev/null || need+=(wrk)
if ((${#need[@]})); then DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null; fi

# A failed build stops here: a binary an earlier build left would report figures for other code.
if ! log=$(swift build -c release --package-path "$ROOT/Benchmarks" --product redis-bench 2>&1); then
  echo "$log" >&2
  echo "redis-lookups: the build failed; no figures" >&2
  exit 1
fi
BENCH="$(swift build -c release --package-path "$ROOT/Benchmarks" --show-bin-path)/redis-bench"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >/dev/null &
PIDS+=($!)
for _ in $(seq 1 100); do redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done

# --- 1. lookups against redis-benchmark ------------------------------------------------------------
"$BENCH" lookups "$REDIS_PORT" "$PAYLOAD" "$CONCURRENCY" "$CONCURRENCY" 0.5 >/dev/null
VALUE_BYTES=$(redis-cli -p "$REDIS_PORT" STRLEN bench:img:k)
echo "value: $VALUE_BYTES bytes ($PAYLOAD of image bytes); concurrency $CONCURRENCY; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %16s %22s %8s %22s %8s\n' round "redis-benchmark" "plugin (16 conns)" ratio "plugin (4 conns)" ratio
ratios16=(); ratios4=()
for round in $(seq 1 "$ROUNDS"); do
  gets=$(redis-benchmark -p "$REDIS_PORT" -t set,get -d "$VALUE_BYTES" -c "$CONCURRENCY" -n "$GET_REQUESTS" -q 2>/dev/null \
    | tr '\r' '\n' | awk -F'[: ]+' '$1 == "GET" {print $2}' | tail -1)
  read -r _ ours16 _ hits16 _ misses16 < <("$BENCH" lookups "$REDIS_PORT" "$PAYLOAD" "$CONCURRENCY" "$CONCURRENCY" "$LOOKUP_SECONDS")
  read -r _ ours4 _ hits4 _ misses4 < <("$BENCH" lookups "$REDIS_PORT" "$PAYLOAD" "$CONCURRENCY" 4 "$LOOKUP_SECONDS")
  if ((misses16 + misses4 > 0)); then echo "redis-lookups: $((misses16 + misses4)) lookups missed; figures void" >&2; exit 1; fi
  r16=$(python3 -c "print(f'{$ours16 / $gets:.2f}')"); r4=$(python3 -c "print(f'{$ours4 / $gets:.2f}')")
  ratios16+=("$r16"); ratios4+=("$r4")
  printf '%-6s %16s %22s %8s %22s %8s\n' "$round" "$gets" "$ours16" "$r16" "$ours4" "$r4"
done
echo "median ratio: $(median "${ratios16[@]}") (16 connections), $(median "${ratios4[@]}") (4 connections); target >= 0.8"

# --- 2. the p99 a Redis lookup adds to a served request ---------------------------------------------
mkdir "$WORK/sources"
# 256x256 RGB PNGs with noisy gradients (~190 KB each, a web image's size), one per name.
python3 "$ROOT/Benchmarks/python/noisy_pngs.py" "$WORK/sources" "$SOURCES" 256
ORIGIN_PORT=$(free_port)
python3 -m http.server "$ORIGIN_PORT" --bind 127.0.0.1 --directory "$WORK/sources" >/dev/null 2>&1 &
ORIGIN_PID=$!
PIDS+=($ORIGIN_PID)
"$BENCH" serve "$REDIS_PORT" "$WORK/sources" > "$WORK/serve.out" &
PIDS+=($!)
for _ in $(seq 1 300); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
SERVER="$(awk '/listening on/ {print $3}' "$WORK/serve.out")"
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/img0.png" && break; sleep 0.1; done

for n in $(seq 0 $((SOURCES - 1))); do echo "/insecure/w:64/plain/http://127.0.0.1:$ORIGIN_PORT/img$n.png@png"; done > "$WORK/redis.txt"
for n in $(seq 0 $((SOURCES - 1))); do echo "/insecure/w:64/plain/local:///img$n.png@png"; done > "$WORK/local.txt"
while read -r path; do curl -sf -o /dev/null "$SERVER$path"; done < "$WORK/redis.txt"
kill "$ORIGIN_PID"; wait "$ORIGIN_PID" 2>/dev/null || true
while read -r path; do curl -sf -o /dev/null "$SERVER$path" || { echo "redis-lookups: $path is not served from Redis" >&2; exit 1; }; done < "$WORK/redis.txt"

run_wrk() {  # urls-file -> "requests/s p50_ms p99_ms non2xx"
  wrk -t"$WRK_CONNECTIONS" -c"$WRK_CONNECTIONS" -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/lua/rotate-urls.lua" "$SERVER" -- "$1" > "$WORK/wrk.txt"
  python3 - "$WORK/wrk.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(value):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
percentile = lambda p: ms(re.search(rf"^\s+{p}%\s+(\S+)", text, re.M).group(1))
rps = re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
print(rps, f"{percentile(50):.2f}", f"{percentile(99):.2f}", non2xx.group(1) if non2xx else 0)
PY
}
echo
echo "served requests: w:64 PNG of 256x256 PNG sources, $SOURCES rotating, wrk -c$WRK_CONNECTIONS ${DURATION}s per run; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-6s %12s %10s %10s %8s\n' round source "requests/s" "p50 ms" "p99 ms" "non-2xx"
added=()
for round in $(seq 1 "$ROUNDS"); do
  read -r lrps lp50 lp99 lerr < <(run_wrk "$WORK/local.txt")
  read -r rrps rp50 rp99 rerr < <(run_wrk "$WORK/redis.txt")
  printf '%-6s %-6s %12s %10s %10s %8s\n' "$round" local "$lrps" "$lp50" "$lp99" "$lerr" "$round" redis "$rrps" "$rp50" "$rp99" "$rerr"
  if ((lerr + rerr > 0)); then echo "redis-lookups: non-2xx answers; figures void" >&2; exit 1; fi
  added+=("$(python3 -c "print(f'{$rp99 - $lp99:.2f}')")")
done
echo "p99 added by the Redis lookup (redis - local), per round: ${added[*]} ms; median $(median "${added[@]}") ms"
curl -s "$SERVER/metrics" | grep -E '^imagepipe_redis_(lookups|errors)_total' || true
