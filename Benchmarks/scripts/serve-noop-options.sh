#!/usr/bin/env bash
# Issue 36's cost check: an option that does nothing costs nothing. The same memory-cache hits
# with and without `cb:`, `fn:` and `exp:` (a cache buster, a file name, an expiry in 2100), in
# ROUNDS alternating wrk runs each, so a machine's drifting load falls on both alike; memory hits,
# because there the URL's parsing is most of the work and any cost of the options would show.
# A third list is the URL without the options padded to the same length with a query (which the
# server cuts off unread): the bytes' own cost, which the options cannot avoid.
#
#   Benchmarks/scripts/serve-noop-options.sh   # DURATION=10 ROUNDS=3 CONNECTIONS=16
#                                              # IMAGEPIPE=(release build) CORPUS_DIR=/tmp/imagepipe-bench-corpus
#
# Sources: the bench corpus's jpeg/1920 photos from python3's http.server, fit into 512x512 as
# JPEG q80, fetched and rendered once before the runs (warm-up), 16 URLs rotating per run. Besides
# requests/s, the server's own CPU time per request (user + system from /proc, over the run): on a
# loaded machine it holds where requests/s drifts.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DURATION="${DURATION:-10}"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS="${CONNECTIONS:-16}"
export CORPUS_DIR="${CORPUS_DIR:-/tmp/imagepipe-bench-corpus}"
CORES="$(nproc)"
WORK="$(mktemp -d /tmp/imagepipe-noop-bench.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

[[ -d "$CORPUS_DIR/jpeg/1920" ]] || CORPUS_DIR="$CORPUS_DIR" bash "$ROOT/Benchmarks/scripts/make-corpus.sh"
command -v wrk >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null
if [[ -z "${IMAGEPIPE:-}" ]]; then
  swift build -c release --package-path "$ROOT" --product imagepipe >/dev/null
  IMAGEPIPE="$ROOT/.build/release/imagepipe"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "nothing on port $1" >&2; exit 1; }

ORIGIN=$(free_port)
python3 -m http.server "$ORIGIN" --bind 127.0.0.1 --directory "$CORPUS_DIR/jpeg/1920" >/dev/null 2>&1 &
PIDS+=($!)
wait_port "$ORIGIN"
PORT=$(free_port)
"$IMAGEPIPE" serve --port "$PORT" --allow-unsigned --allow-private-sources --workers "$CORES" --queue 4096 --quiet >/dev/null &
SERVER=$!
PIDS+=($SERVER)
wait_port "$PORT"

names=()
for file in "$CORPUS_DIR"/jpeg/1920/*.jpg; do names+=("$(basename "$file")"); done
for name in "${names[@]}"; do
  echo "/insecure/rs:fit:512:512/q:80/plain/http://127.0.0.1:$ORIGIN/$name@jpg"
done > "$WORK/plain.txt"
for name in "${names[@]}"; do
  echo "/insecure/rs:fit:512:512/q:80/cb:v2/fn:photo-${name%.jpg}/exp:4102444800/plain/http://127.0.0.1:$ORIGIN/$name@jpg"
done > "$WORK/noop.txt"
for name in "${names[@]}"; do
  echo "/insecure/rs:fit:512:512/q:80/plain/http://127.0.0.1:$ORIGIN/$name@jpg?pad=cb:v2/fn:photo-${name%.jpg}/exp:4102444800"
done > "$WORK/padded.txt"
# Warm-up: every URL rendered and in memory; each must answer 200.
for list in plain noop padded; do
  while read -r path; do
    status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$path")
    [[ "$status" == 200 ]] || { echo "warm-up: $status for $path" >&2; exit 1; }
  done < "$WORK/$list.txt"
done

run_wrk() {  # urls-file -> "requests/s CPU-µs-per-request"
  local threads=$(( CONNECTIONS < CORES ? CONNECTIONS : CORES ))
  local before after requests
  before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  wrk -t"$threads" -c"$CONNECTIONS" -d"${DURATION}s" -s "$ROOT/Benchmarks/lua/rotate-urls.lua" "http://127.0.0.1:$PORT" -- "$1" > "$WORK/wrk.txt"
  after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  if grep -q 'Non-2xx' "$WORK/wrk.txt"; then echo "non-2xx answers in a run:" >&2; cat "$WORK/wrk.txt" >&2; exit 1; fi
  requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
  echo "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt") $(python3 -c "print(f'{1e6 * ($after - $before) / $(getconf CLK_TCK) / max($requests, 1):.1f}')")"
}

echo "memory hits, fit 512x512 JPEG q80, ${DURATION}s per run, concurrency $CONNECTIONS; $CORES cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A: without the options; B: with cb, fn, exp; C: A padded to B's length with an ignored query"
row() { printf '%-6s %10s %10s %10s %7s %7s   %9s %9s %9s %7s %7s\n' "$@"; }
ratio() { python3 -c "print(f'{$1 / $2:.3f}')"; }
row "round" "A req/s" "B req/s" "C req/s" "B/A" "B/C" "A CPU µs" "B CPU µs" "C CPU µs" "B/A" "B/C"
sums=(0 0 0 0 0 0)
for round in $(seq 1 "$ROUNDS"); do
  read -r a acpu < <(run_wrk "$WORK/plain.txt")
  read -r b bcpu < <(run_wrk "$WORK/noop.txt")
  read -r c ccpu < <(run_wrk "$WORK/padded.txt")
  sums=($(python3 -c "print(${sums[0]} + $a, ${sums[1]} + $b, ${sums[2]} + $c, ${sums[3]} + $acpu, ${sums[4]} + $bcpu, ${sums[5]} + $ccpu)"))
  row "$round" "$a" "$b" "$c" "$(ratio "$b" "$a")" "$(ratio "$b" "$c")" "$acpu" "$bcpu" "$ccpu" "$(ratio "$bcpu" "$acpu")" "$(ratio "$bcpu" "$ccpu")"
done
read -r a b c acpu bcpu ccpu < <(python3 -c "print(*(f'{v / $ROUNDS:.1f}' for v in [${sums[0]}, ${sums[1]}, ${sums[2]}, ${sums[3]}, ${sums[4]}, ${sums[5]}]))")
row "mean" "$a" "$b" "$c" "$(ratio "$b" "$a")" "$(ratio "$b" "$c")" "$acpu" "$bcpu" "$ccpu" "$(ratio "$bcpu" "$acpu")" "$(ratio "$bcpu" "$ccpu")"
