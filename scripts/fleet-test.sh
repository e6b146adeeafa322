#!/usr/bin/env bash
# The fleet test: nginx in front of three `imagepipe serve --redis` and one redis-server, with an
# nginx origin that logs every request, all on free loopback ports, started and stopped here (no
# process outlives the script). wrk (Benchmarks/lua/rotate-urls.lua) loads the fleet through nginx
# in bounded phases, each on sources or options the earlier ones did not use:
#
#   share   every source is fetched from the origin once fleet-wide; each server, asked directly,
#           answers every URL with the same ETag
#   kill    a server is killed with SIGKILL mid-run: no answer but 2xx (nginx retries on the
#           others: proxy_next_upstream error timeout http_502 http_503)
#   drain   a server is stopped with SIGTERM mid-run: no answer but 2xx, and it exits 0
#   restart Redis is restarted mid-run: no answer but 2xx; then sharing resumes by itself (a new
#           source is fetched once, whichever servers ask for it)
#   full    Redis at maxmemory with noeviction: writes fail, no answer but 2xx, and the servers'
#           /metrics count the failed writes (imagepipe_redis_errors_total{kind="oom"})
#   slow    Redis paused (CLIENT PAUSE): no answer but 2xx, the servers' breakers open, then close
#           again once Redis answers
#
# and prints its figures: requests, non-2xx, socket errors, p99 and origin requests per phase.
#
#   scripts/fleet-test.sh   # IMAGEPIPE=.build/release/imagepipe DURATION=10 SOURCES=32 CONNECTIONS=8
#                           # VARIANTS=400 (sizes of each source in the fault phases)
#   make test-fleet         # the short form `make test` runs: the debug build, DURATION=3 SOURCES=12
#
# Checks that need result sharing and purge (`--redis-max-result-bytes`, `--admin-secret`) are in
# `check_shared_results` and `check_purge` below; they run when the binary has those flags.
# Needs nginx, redis-server, redis-cli, wrk, curl and python3 (make deps installs them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGEPIPE="$(realpath "${IMAGEPIPE:-$ROOT/.build/release/imagepipe}")"
DURATION="${DURATION:-10}"
SOURCES="${SOURCES:-32}"
CONNECTIONS="${CONNECTIONS:-8}"
VARIANTS="${VARIANTS:-400}"
SERVERS=3
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

for tool in "$NGINX" redis-server redis-cli wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "fleet-test: $tool is missing (make deps installs it)" >&2; exit 1; }
done
[[ -x "$IMAGEPIPE" ]] || { echo "fleet-test: no imagepipe binary at $IMAGEPIPE (IMAGEPIPE=PATH)" >&2; exit 1; }

# --- processes: every one started is stopped on exit ------------------------------------------------
WORK="$(mktemp -d /tmp/imagepipe-fleet.XXXXXX)"
SERVER_PIDS=()
REDIS_PID=""
NGINX_PID=""
wrk_pid=""
stop() {  # pid: TERM, then KILL after 5 s
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local status=$?
  stop "$wrk_pid"
  for pid in "${SERVER_PIDS[@]}"; do stop "$pid"; done
  stop "$REDIS_PID"
  stop "$NGINX_PID"
  if ((status != 0)); then
    for log in "$WORK"/server*.log "$WORK"/nginx-error.log "$WORK"/redis.log; do
      [[ -s "$log" ]] && { echo "--- last lines of $(basename "$log")" >&2; tail -5 "$log" >&2; }
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "fleet-test: FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
FAILURES=0
check() {  # description, condition (an arithmetic expression)
  if (($2)); then echo "  ok    $1"; else echo "  FAIL  $1" >&2; FAILURES=$((FAILURES + 1)); fi
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {  # url: 200 within 30 s
  for _ in $(seq 1 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "fleet-test: $1 did not answer" >&2; return 1
}

# --- the origin's files: small noisy PNGs, a pool the phases take from in turn -----------------------
mkdir "$WORK/origin"
POOL=$((SOURCES * 6 + 200))
python3 "$ROOT/Benchmarks/python/noisy_pngs.py" "$WORK/origin" "$POOL" 96
NEXT_SOURCE=0
take_sources() {  # count: sets FIRST and LAST to a range of sources no phase used yet
  FIRST=$NEXT_SOURCE
  NEXT_SOURCE=$((NEXT_SOURCE + $1))
  LAST=$((NEXT_SOURCE - 1))
  ((NEXT_SOURCE <= POOL)) || { echo "fleet-test: the source pool is too small" >&2; return 1; }
}
upstream_failures() {  # port -> requests nginx saw fail on that server (and retried elsewhere)
  grep -c "upstream: \"http://127.0.0.1:$1/" "$WORK/nginx-error.log" || true
}
origin_requests() {  # [path] -> requests the origin answered (for path, or all)
  if [[ -n "${1:-}" ]]; then awk -v p="$1" '$1 == p' "$WORK/origin.log" | wc -l; else wc -l <"$WORK/origin.log"; fi
}

# --- nginx: the origin and the load balancer ---------------------------------------------------------
ORIGIN_PORT=$(free_port)
LB_PORT=$(free_port)
REDIS_PORT=$(free_port)
PORTS=(); METRICS_PORTS=()
for i in $(seq 0 $((SERVERS - 1))); do PORTS+=("$(free_port)"); METRICS_PORTS+=("$(free_port)"); done
touch "$WORK/origin.log"
{
  [[ "$(id -u)" -eq 0 ]] && echo "user $(id -un);"
  cat <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
  client_body_temp_path $WORK/nginx-body;
  proxy_temp_path $WORK/nginx-proxy;
  fastcgi_temp_path $WORK/nginx-fastcgi;
  uwsgi_temp_path $WORK/nginx-uwsgi;
  scgi_temp_path $WORK/nginx-scgi;
  types { image/png png; }
  log_format origin '\$uri \$status';
  # The origin: every request logged (unbuffered), each answer spread over ~50 ms so servers that
  # miss a source at once really overlap.
  server {
    listen 127.0.0.1:$ORIGIN_PORT;
    root $WORK/origin;
    access_log $WORK/origin.log origin;
    limit_rate 512k;
  }
  # The load balancer: a failed connection, a timeout, a 502 or a 503 is retried on the next server.
  upstream fleet {
$(for port in "${PORTS[@]}"; do echo "    server 127.0.0.1:$port max_fails=1 fail_timeout=1s;"; done)
    keepalive 32;
  }
  server {
    listen 127.0.0.1:$LB_PORT;
    access_log off;
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_connect_timeout 1s;
      proxy_read_timeout 15s;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries $SERVERS;
    }
  }
}
CONF
} >"$WORK/nginx.conf"
"$NGINX" -e "$WORK/nginx-error.log" -p "$WORK" -c "$WORK/nginx.conf" &
NGINX_PID=$!

# --- Redis and the servers -----------------------------------------------------------------------------
start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >>"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 1 100); do redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "fleet-test: redis-server did not start" >&2; return 1
}
SERVE_FLAGS=(--allow-unsigned --allow-private-sources --allow-source "http://127.0.0.1:$ORIGIN_PORT/"
  --redis "redis://127.0.0.1:$REDIS_PORT" --workers 2 --queue 4096 --quiet)
start_server() {  # index
  local i="$1"
  "$IMAGEPIPE" serve --port "${PORTS[i]}" --metrics-port "${METRICS_PORTS[i]}" "${SERVE_FLAGS[@]}" "${EXTRA_SERVE_FLAGS[@]}" \
    >>"$WORK/server$i.log" 2>&1 &
  SERVER_PIDS[i]=$!
  wait_http "http://127.0.0.1:${PORTS[i]}/health"
}
metric() {  # name [label="value"] -> the sum of its series over the servers
  local total=0 i value
  for i in $(seq 0 $((SERVERS - 1))); do
    value=$(curl -s "http://127.0.0.1:${METRICS_PORTS[i]}/metrics" | awk -v name="$1" -v label="${2:-}" '
      ($1 == name || index($1, name "{") == 1) && (label == "" || index($1, label) > 0) { sum += $NF }
      END { printf "%d", sum }')
    total=$((total + ${value:-0}))
  done
  echo "$total"
}

# --- result sharing and purge ------------------------------------------------------------------------
ADMIN_SECRET="fleet-test-admin-secret"
EXTRA_SERVE_FLAGS=(--admin-secret "$ADMIN_SECRET")

check_shared_results() {  # url file of the share phase: one render per URL fleet-wide
  local urls renders hits
  urls=$(wc -l <"$1")
  renders=$(metric imagepipe_processing_duration_seconds_count)
  hits=$(metric imagepipe_redis_results_total 'outcome="hit"')
  echo "  renders: $renders for $urls URLs; shared-tier result hits: $hits"
  check "one render per URL fleet-wide ($renders renders, $urls URLs)" "renders == urls"
  check "results answered from the shared tier ($hits hits)" "hits > 0"
}

check_purge() {  # purge one source through one server; no server answers its old ETag after
  local source url before after i etag old_etag origin_before
  take_sources 1
  source="http://127.0.0.1:$ORIGIN_PORT/img$FIRST.png"
  url="/insecure/w:40/plain/$source@png"
  for i in $(seq 0 $((SERVERS - 1))); do curl -sf -o /dev/null "http://127.0.0.1:${PORTS[i]}$url"; done
  old_etag=$(curl -s -o /dev/null -D - "http://127.0.0.1:${PORTS[0]}$url" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
  # A new file under the same name: after the purge the servers must fetch and answer it.
  cp "$WORK/origin/img$((FIRST + 1)).png" "$WORK/origin/img$FIRST.png"
  touch -d '+1 minute' "$WORK/origin/img$FIRST.png"
  origin_before=$(origin_requests "/img$FIRST.png")
  before=$(date +%s%N)
  status=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $ADMIN_SECRET" \
    --data-urlencode "url=$source" "http://127.0.0.1:${PORTS[1]}/purge")
  after=$(date +%s%N)
  check "POST /purge answers 2xx ($status, $(((after - before) / 1000000)) ms)" "${status:-0} >= 200 && ${status:-0} < 300"
  local stale=0
  for i in $(seq 0 $((SERVERS - 1))); do
    etag=$(curl -s -o /dev/null -D - "http://127.0.0.1:${PORTS[i]}$url" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
    [[ "$etag" != "$old_etag" ]] || stale=$((stale + 1))
  done
  check "no server answers the purged ETag ($stale stale)" "stale == 0"
  check "the purged source is fetched again, once ($(($(origin_requests "/img$FIRST.png") - origin_before)) fetches)" \
    "$(origin_requests "/img$FIRST.png") - origin_before == 1"
}

# Open breakers close on the first command that succeeds after their cool-down: a new source asked
# of every server keeps them asking. Sets CLOSED_MS to the milliseconds until every one is closed,
# or to nothing when one is still open after 30 s.
close_breakers() {
  local started n i
  started=$(date +%s%N)
  CLOSED_MS=""
  for _ in $(seq 1 60); do
    if (($(metric imagepipe_redis_breaker_open) == 0)); then CLOSED_MS=$((($(date +%s%N) - started) / 1000000)); return 0; fi
    take_sources 1; n=$FIRST
    for i in $(seq 0 $((SERVERS - 1))); do
      curl -s -o /dev/null "http://127.0.0.1:${PORTS[i]}/insecure/w:40/plain/http://127.0.0.1:$ORIGIN_PORT/img$n.png@png"
    done
    sleep 0.5
  done
}

# --- wrk ------------------------------------------------------------------------------------------------
urls_for() {  # first last options -> a URL file, one path per source
  local file="$WORK/urls-$3-$1.txt" n
  for n in $(seq "$1" "$2"); do echo "/insecure/$3/plain/http://127.0.0.1:$ORIGIN_PORT/img$n.png@png"; done >"$file"
  echo "$file"
}
# A fault phase's URLs: each source under VARIANTS sizes, sizes outermost, more than a phase can
# answer, so results keep missing the memory caches and every request asks Redis for its source.
urls_loaded() {  # first last -> a URL file
  local file="$WORK/urls-loaded-$1.txt"
  python3 - "$1" "$2" "$ORIGIN_PORT" "$VARIANTS" >"$file" <<'PY'
import sys
first, last, port, variants = (int(a) for a in sys.argv[1:])
for v in range(variants):
    for n in range(first, last + 1):
        print(f"/insecure/rs:fit:{16 + v % 80}:{16 + v // 80}/plain/http://127.0.0.1:{port}/img{n}.png@png")
PY
  echo "$file"
}
start_wrk() {  # url file, output file: wrk runs in the background as wrk_pid
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 15s --latency -s "$ROOT/Benchmarks/lua/rotate-urls.lua" \
    "http://127.0.0.1:$LB_PORT" -- "$1" >"$2" &
  wrk_pid=$!
}
run_wrk() {  # url file, output file: wrk runs to its end
  start_wrk "$@"
  wait "$wrk_pid"
}
wrk_figures() {  # wrk output -> "requests non2xx socket_errors p99_ms"
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(value):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
requests = re.search(r"(\d+) requests in", text).group(1)
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M)
print(requests, non2xx.group(1) if non2xx else 0, sum(map(int, errors.groups())) if errors else 0,
      f"{ms(p99.group(1)):.1f}" if p99 else "-")
PY
}
FIGURES=()
record() {  # phase, wrk output, origin requests, note
  local requests non2xx errors p99
  read -r requests non2xx errors p99 < <(wrk_figures "$2")
  FIGURES+=("$(printf '%-8s %9s %8s %14s %9s %16s  %s' "$1" "$requests" "$non2xx" "$errors" "$p99" "$3" "$4")")
  check "$1: every answer 2xx ($non2xx non-2xx of $requests)" "non2xx == 0 && requests > 0"
  check "$1: no socket errors ($errors)" "errors == 0"
}

start_redis
for i in $(seq 0 $((SERVERS - 1))); do start_server "$i"; done
wait_http "http://127.0.0.1:$ORIGIN_PORT/img0.png"
: >"$WORK/origin.log"
echo "fleet-test: nginx :$LB_PORT -> servers ${PORTS[*]} (metrics ${METRICS_PORTS[*]}), redis :$REDIS_PORT, origin :$ORIGIN_PORT"
echo "fleet-test: $IMAGEPIPE; wrk -c$CONNECTIONS ${DURATION}s a phase, $SOURCES sources a phase; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# --- share: one origin request per source, the same ETag everywhere --------------------------------------
echo "share"
take_sources "$SOURCES"
cat "$(urls_for "$FIRST" "$LAST" w:48)" "$(urls_for "$FIRST" "$LAST" w:32)" >"$WORK/share.txt"
run_wrk "$WORK/share.txt" "$WORK/wrk-share.txt"
fetched=0; once=0
for n in $(seq "$FIRST" "$LAST"); do
  count=$(origin_requests "/img$n.png")
  if ((count > 0)); then fetched=$((fetched + 1)); fi
  if ((count == 1)); then once=$((once + 1)); fi
done
record share "$WORK/wrk-share.txt" "$(origin_requests)" "$SOURCES sources"
check "share: every source fetched ($fetched of $SOURCES)" "fetched == SOURCES"
check "share: each fetched once fleet-wide ($once of $SOURCES once; $(origin_requests) origin requests)" "once == SOURCES"
differing=0
while read -r path; do
  etags=$(for i in $(seq 0 $((SERVERS - 1))); do
    curl -s -o /dev/null -D - "http://127.0.0.1:${PORTS[i]}$path" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }'
  done | sort -u)
  [[ $(wc -l <<<"$etags") -eq 1 && -n "$etags" ]] || differing=$((differing + 1))
done <"$WORK/share.txt"
check "share: every server answers each URL with the same ETag ($differing of $(wc -l <"$WORK/share.txt") differ)" "differing == 0"
echo "  renders: $(metric imagepipe_processing_duration_seconds_count) fleet-wide for $(wc -l <"$WORK/share.txt") URLs"
check_shared_results "$WORK/share.txt"

# --- kill: SIGKILL one server mid-run ----------------------------------------------------------------------
echo "kill"
origin_before=$(origin_requests)
take_sources "$SOURCES"
urls=$(urls_loaded "$FIRST" "$LAST")
start_wrk "$urls" "$WORK/wrk-kill.txt"
sleep "$(python3 -c "print($DURATION / 3)")"
retried_before=$(upstream_failures "${PORTS[1]}")
kill -KILL "${SERVER_PIDS[1]}"; wait "${SERVER_PIDS[1]}" 2>/dev/null || true
wait "$wrk_pid"
record kill "$WORK/wrk-kill.txt" "$(($(origin_requests) - origin_before))" \
  "server 1 SIGKILLed at $(python3 -c "print(round($DURATION / 3, 1))") s; nginx retried $(($(upstream_failures "${PORTS[1]}") - retried_before))"
start_server 1

# --- drain: SIGTERM one server mid-run -----------------------------------------------------------------------
echo "drain"
origin_before=$(origin_requests)
take_sources "$SOURCES"
urls=$(urls_loaded "$FIRST" "$LAST")
start_wrk "$urls" "$WORK/wrk-drain.txt"
sleep "$(python3 -c "print($DURATION / 3)")"
retried_before=$(upstream_failures "${PORTS[2]}")
kill -TERM "${SERVER_PIDS[2]}"
drain_status=0; wait "${SERVER_PIDS[2]}" || drain_status=$?
wait "$wrk_pid"
record drain "$WORK/wrk-drain.txt" "$(($(origin_requests) - origin_before))" \
  "server 2 SIGTERMed; nginx retried $(($(upstream_failures "${PORTS[2]}") - retried_before))"
check "drain: the drained server exits 0 ($drain_status)" "drain_status == 0"
start_server 2

# --- restart: Redis restarted under load; sharing resumes ------------------------------------------------------
echo "restart"
origin_before=$(origin_requests)
connection_errors_before=$(metric imagepipe_redis_errors_total 'kind="connection"')
take_sources "$SOURCES"
urls=$(urls_loaded "$FIRST" "$LAST")
start_wrk "$urls" "$WORK/wrk-restart.txt"
sleep "$(python3 -c "print($DURATION / 3)")"
kill -KILL "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true
sleep 1
start_redis
restarted=$(date +%s%N)
wait "$wrk_pid"
record restart "$WORK/wrk-restart.txt" "$(($(origin_requests) - origin_before))" "Redis down 1 s"
# Sharing resumes when a new source, asked of every server in turn, is fetched from the origin once.
resumed=""
for _ in $(seq 1 60); do
  take_sources 1; n=$FIRST
  for i in $(seq 0 $((SERVERS - 1))); do
    curl -s -o /dev/null "http://127.0.0.1:${PORTS[i]}/insecure/w:40/plain/http://127.0.0.1:$ORIGIN_PORT/img$n.png@png"
  done
  if (($(origin_requests "/img$n.png") == 1)); then resumed=$((($(date +%s%N) - restarted) / 1000000)); break; fi
  sleep 0.5
done
check "restart: sharing resumes by itself (a new source fetched once ${resumed:+$resumed ms after the restart})" "${resumed:-0} > 0"
# Connections to the old Redis fail once each (under load, or on the first command after it).
connection_errors=$(($(metric imagepipe_redis_errors_total 'kind="connection"') - connection_errors_before))
check "restart: /metrics counts the lost connections (imagepipe_redis_errors_total{kind=\"connection\"} +$connection_errors)" "connection_errors > 0"

# --- full: Redis at maxmemory, noeviction ---------------------------------------------------------------------
echo "full"
origin_before=$(origin_requests)
oom_before=$(metric imagepipe_redis_errors_total 'kind="oom"')
used=$(redis-cli -p "$REDIS_PORT" INFO memory | tr -d '\r' | awk -F: '$1 == "used_memory" { print $2 }')
redis-cli -p "$REDIS_PORT" CONFIG SET maxmemory-policy noeviction >/dev/null
redis-cli -p "$REDIS_PORT" CONFIG SET maxmemory "$used" >/dev/null
take_sources "$SOURCES"
urls=$(urls_loaded "$FIRST" "$LAST")
run_wrk "$urls" "$WORK/wrk-full.txt"
oom=$(($(metric imagepipe_redis_errors_total 'kind="oom"') - oom_before))
redis-cli -p "$REDIS_PORT" CONFIG SET maxmemory 0 >/dev/null
record full "$WORK/wrk-full.txt" "$(($(origin_requests) - origin_before))" "maxmemory $used bytes"
check "full: /metrics counts the failed writes (imagepipe_redis_errors_total{kind=\"oom\"} +$oom)" "oom > 0"

# --- slow: Redis paused; the breakers open, then close ------------------------------------------------------------
echo "slow"
# The full phase's failed writes may have left breakers open: each starts closed.
close_breakers
origin_before=$(origin_requests)
openings_before=$(metric imagepipe_redis_breaker_openings_total)
take_sources "$SOURCES"
urls=$(urls_loaded "$FIRST" "$LAST")
pause_ms=$(python3 -c "print(int(max(2, $DURATION / 2) * 1000))")
redis-cli -p "$REDIS_PORT" CLIENT PAUSE "$pause_ms" ALL >/dev/null
run_wrk "$urls" "$WORK/wrk-slow.txt"
openings=$(($(metric imagepipe_redis_breaker_openings_total) - openings_before))
record slow "$WORK/wrk-slow.txt" "$(($(origin_requests) - origin_before))" "CLIENT PAUSE $pause_ms ms"
check "slow: the breakers open ($openings openings)" "openings > 0"
close_breakers
check "slow: the breakers close again (${CLOSED_MS:+all closed $CLOSED_MS ms after the run})" "${#CLOSED_MS} > 0"

# --- purge ------------------------------------------------------------------------------------------------------
echo "purge"
check_purge

echo
printf '%-8s %9s %8s %14s %9s %16s  %s\n' phase requests non-2xx "socket errors" "p99 ms" "origin requests" note
printf '%s\n' "${FIGURES[@]}"
if ((FAILURES > 0)); then echo "fleet-test: $FAILURES checks failed" >&2; exit 1; fi
echo "fleet-test: all checks passed"
