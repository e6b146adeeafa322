#!/usr/bin/env bash
# Issue 25's benchmark: `imagepipe serve` against thumbor doing the same operation, in one run:
# fit into 512x512 and write JPEG at quality 80 (imgproxy's published method), sources from a local
# origin (nginx when installed, else python3 http.server, over the bench corpus's jpeg/1920 photos,
# 100 names rotating over its 16 files, so nothing is answered from a result cache), wrk with Benchmarks/lua/rotate-urls.lua
# at concurrency 2 and 16 for DURATION seconds each; then imagepipe's warm memory-cache hits at 16.
#
#   Benchmarks/scripts/serve-vs-thumbor.sh   # DURATION=20 CORPUS_DIR=/tmp/imagepipe-bench-corpus
#                                       # IMAGEPIPE=(release build) THUMBOR_VENV=.build/thumbor-venv
#                                       # ORIGIN_SERVER=nginx|python (default: nginx if installed)
#
# imagepipe runs with --no-cache (every request fetches, decodes, resizes, encodes) and one worker
# per core; thumbor with one process per core and its result storage off (its source storage, on
# by default, stays on). Peak RSS is VmHWM from /proc, summed over thumbor's processes. CPU per
# request is the servers' own user + system time (/proc/PID/stat, thumbor's processes summed) over
# a run, divided by its requests: unlike requests/s it holds on a loaded machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DURATION="${DURATION:-20}"
export CORPUS_DIR="${CORPUS_DIR:-/tmp/imagepipe-bench-corpus}"
THUMBOR_VENV="${THUMBOR_VENV:-$ROOT/.build/thumbor-venv}"
THUMBOR_VERSION="${THUMBOR_VERSION:-7.8.0}"
CORES="$(nproc)"
WORK="$(mktemp -d /tmp/imagepipe-serve-bench.XXXXXX)"
PIDS=()
# thumbor's worker processes outlive their parent: each started process's children go first.
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill $(ps -o pid= --ppid "$pid" 2>/dev/null) "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

[[ -d "$CORPUS_DIR/jpeg/1920" ]] || CORPUS_DIR="$CORPUS_DIR" bash "$ROOT/Benchmarks/scripts/make-corpus.sh"
command -v wrk >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null
if [[ ! -x "$THUMBOR_VENV/bin/thumbor" ]]; then
  python3 -m venv "$THUMBOR_VENV"
  "$THUMBOR_VENV/bin/pip" install -q "thumbor==$THUMBOR_VERSION"
fi
if [[ -z "${IMAGEPIPE:-}" ]]; then
  swift build -c release --package-path "$ROOT" --product imagepipe >/dev/null
  IMAGEPIPE="$ROOT/.build/release/imagepipe"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "nothing on port $1" >&2; exit 1; }
peak_rss_kb() {  # VmHWM of $1 and every descendant, summed
  local total=0 pid
  for pid in $1 $(ps -o pid= --ppid "$1" 2>/dev/null); do
    total=$((total + $(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
cpu_ticks() {  # user + system clock ticks of $1 and every descendant
  local total=0 pid
  for pid in $1 $(ps -o pid= --ppid "$1" 2>/dev/null); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
run_wrk() {  # port connections urls-file server-pid -> "requests/s p99 non-2xx cpu-ms-per-request"
  local threads=$(( $2 < CORES ? $2 : CORES ))
  local before after
  before=$(cpu_ticks "$4")
  wrk -t"$threads" -c"$2" -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/lua/rotate-urls.lua" "http://127.0.0.1:$1" -- "$3" > "$WORK/wrk.txt"
  after=$(cpu_ticks "$4")
  local rps p99 errors requests
  rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.txt")
  errors=$(awk '/Non-2xx/ {print $NF}' "$WORK/wrk.txt")
  requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
  echo "$rps $p99 ${errors:-0} $(python3 -c "print(f'{1000 * ($after - $before) / $(getconf CLK_TCK) / max($requests, 1):.2f}')")"
}

# --- the origin: 100 names over the 16 photos ----------------------------------------------------
mkdir "$WORK/origin"
files=("$CORPUS_DIR"/jpeg/1920/*.jpg)
for i in $(seq 0 99); do ln -s "${files[i % ${#files[@]}]}" "$WORK/origin/img$i.jpg"; done
ORIGIN=$(free_port)
ORIGIN_SERVER="${ORIGIN_SERVER:-$(command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] && echo nginx || echo python)}"
if [[ "$ORIGIN_SERVER" == nginx ]]; then
  # One worker process, files from the page cache with sendfile: an origin that costs the two
  # servers under test (and wrk) as little CPU as possible.
  cat > "$WORK/nginx.conf" <<CONF
user $(id -un);
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 100000;
  client_body_temp_path $WORK/nginx-body;
  proxy_temp_path $WORK/nginx-proxy;
  fastcgi_temp_path $WORK/nginx-fastcgi;
  uwsgi_temp_path $WORK/nginx-uwsgi;
  scgi_temp_path $WORK/nginx-scgi;
  types { image/jpeg jpg; }
  server { listen 127.0.0.1:$ORIGIN; root $WORK/origin; }
}
CONF
  "$(command -v nginx || echo /usr/sbin/nginx)" -e "$WORK/nginx-error.log" -c "$WORK/nginx.conf" &
else
  python3 -m http.server "$ORIGIN" --bind 127.0.0.1 --directory "$WORK/origin" >/dev/null 2>&1 &
fi
PIDS+=($!)
wait_port "$ORIGIN"

# --- imagepipe serve -------------------------------------------------------------------------------
for i in $(seq 0 99); do echo "/insecure/rs:fit:512:512/q:80/plain/http://127.0.0.1:$ORIGIN/img$i.jpg@jpg"; done > "$WORK/imagepipe.txt"
run_imagepipe() {  # extra flags...
  IP_PORT=$(free_port)
  "$IMAGEPIPE" serve --port "$IP_PORT" --allow-unsigned --allow-private-sources --workers "$CORES" --queue 4096 --quiet "$@" >/dev/null &
  IP_PID=$!
  PIDS+=($IP_PID)
  wait_port "$IP_PORT"
}
run_imagepipe --no-cache
read -r ip2 ip2p99 ip2err ip2cpu < <(run_wrk "$IP_PORT" 2 "$WORK/imagepipe.txt" "$IP_PID")
read -r ip16 ip16p99 ip16err ip16cpu < <(run_wrk "$IP_PORT" 16 "$WORK/imagepipe.txt" "$IP_PID")
ip_rss=$(peak_rss_kb "$IP_PID")
kill "$IP_PID"; wait "$IP_PID" 2>/dev/null || true

run_imagepipe
while read -r path; do curl -s -o /dev/null "http://127.0.0.1:$IP_PORT$path"; done < "$WORK/imagepipe.txt"
read -r warm warmp99 warmerr warmcpu < <(run_wrk "$IP_PORT" 16 "$WORK/imagepipe.txt" "$IP_PID")
kill "$IP_PID"; wait "$IP_PID" 2>/dev/null || true

# --- thumbor ----------------------------------------------------------------------------------------
cat > "$WORK/thumbor.conf" <<CONF
ALLOW_UNSAFE_URL = True
RESULT_STORAGE = None
FILE_STORAGE_ROOT_PATH = '$WORK/thumbor-storage'
QUALITY = 80
AUTO_WEBP = False
CONF
for i in $(seq 0 99); do echo "/unsafe/fit-in/512x512/filters:quality(80)/127.0.0.1:$ORIGIN/img$i.jpg"; done > "$WORK/thumbor.txt"
TH_PORT=$(free_port)
"$THUMBOR_VENV/bin/thumbor" --port "$TH_PORT" --conf "$WORK/thumbor.conf" --processes "$CORES" -l error >/dev/null 2>&1 &
TH_PID=$!
PIDS+=($TH_PID)
for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$TH_PORT/healthcheck" && break; sleep 0.1; done
read -r th2 th2p99 th2err th2cpu < <(run_wrk "$TH_PORT" 2 "$WORK/thumbor.txt" "$TH_PID")
read -r th16 th16p99 th16err th16cpu < <(run_wrk "$TH_PORT" 16 "$WORK/thumbor.txt" "$TH_PID")
th_rss=$(peak_rss_kb "$TH_PID")

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo
echo "fit 512x512, JPEG q80, 100 rotating sources from $ORIGIN_SERVER; ${DURATION}s per run; $CORES cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %12s %10s %10s %12s %8s\n' "server" "requests/s" "p99" "non-2xx" "CPU ms/req" "peak RSS"
printf '%-34s %12s %10s %10s %12s %7sM\n' "imagepipe serve, concurrency 2" "$ip2" "$ip2p99" "$ip2err" "$ip2cpu" "$((ip_rss / 1024))"
printf '%-34s %12s %10s %10s %12s %7sM\n' "thumbor $THUMBOR_VERSION, concurrency 2" "$th2" "$th2p99" "$th2err" "$th2cpu" "$((th_rss / 1024))"
printf '%-34s %12s %10s %10s %12s\n' "imagepipe serve, concurrency 16" "$ip16" "$ip16p99" "$ip16err" "$ip16cpu"
printf '%-34s %12s %10s %10s %12s\n' "thumbor $THUMBOR_VERSION, concurrency 16" "$th16" "$th16p99" "$th16err" "$th16cpu"
printf '%-34s %12s %10s %10s %12s\n' "imagepipe warm memory hits, c16" "$warm" "$warmp99" "$warmerr" "$warmcpu"
echo "imagepipe / thumbor requests/s: $(ratio "$ip2" "$th2") at concurrency 2, $(ratio "$ip16" "$th16") at 16"
echo "thumbor / imagepipe CPU per request (the servers' own processes; holds under load): $(ratio "$th2cpu" "$ip2cpu") at concurrency 2, $(ratio "$th16cpu" "$ip16cpu") at 16"
echo "reference, another machine: imgproxy's published 2-vCPU JPEG figure, 79.6 requests/s"
