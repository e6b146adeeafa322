#!/usr/bin/env bash
# HTTPLoader vs `curl --parallel --parallel-max N` on the same 1,000 URLs from a local server.
#
#   Benchmarks/scripts/loader-http.sh            # CORPUS_DIR, COUNT=1000, CONCURRENCY=6, RUNS=3
#
# The bench corpus (Benchmarks/scripts/make-corpus.sh) is served by a threaded HTTP/1.1 keep-alive
# Python server on 127.0.0.1; its files are cycled (with a distinct query string each, so nothing
# is coalesced or cached) to make COUNT URLs. Each tool runs RUNS times, alternating; the line per
# run is JSON, the summary gives the median seconds and the ratio (>1 means ImagePipe is faster).
set -euo pipefail
cd "$(dirname "$0")/../.."
CORPUS_DIR="${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/imagepipe-bench-corpus}"
COUNT="${COUNT:-1000}"
CONCURRENCY="${CONCURRENCY:-6}"
RUNS="${RUNS:-3}"

[ -f "$CORPUS_DIR/.complete" ] || CORPUS_DIR="$CORPUS_DIR" bash Benchmarks/scripts/make-corpus.sh
swift build -c release --package-path Benchmarks --product loader-http-bench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/loader-http-bench"

WORK="$(mktemp -d)"
cleanup() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 - "$CORPUS_DIR" "$PORT" <<'PY' &
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: both clients may reuse connections
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), functools.partial(Handler, directory=sys.argv[1]))
server.daemon_threads = True
server.serve_forever()
PY
SERVER_PID=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done

(cd "$CORPUS_DIR" && find . -type f -not -path './.*' | sed 's|^\./||' | sort) > "$WORK/files"
FILES="$(wc -l < "$WORK/files")"
awk -v n="$COUNT" -v port="$PORT" '{ f[NR] = $0 } END { for (i = 0; i < n; i++) printf "http://127.0.0.1:%s/%s?i=%d\n", port, f[i % NR + 1], i }' "$WORK/files" > "$WORK/urls"
awk '{ printf "url = \"%s\"\noutput = \"/dev/null\"\n", $0 }' "$WORK/urls" > "$WORK/curl.cfg"
BYTES="$(awk -v n="$COUNT" '{ f[NR] = $0 } END { for (i = 0; i < n; i++) print f[i % NR + 1] }' "$WORK/files" | (cd "$CORPUS_DIR" && xargs stat -c %s) | awk '{ s += $1 } END { print s }')"
echo "# $COUNT URLs over $FILES corpus files, $BYTES bytes, concurrency $CONCURRENCY, server 127.0.0.1:$PORT"

now() { date +%s.%N; }
ours=(); theirs=()
for run in $(seq "$RUNS"); do
  out="$("$BENCH" "$WORK/urls" "$CONCURRENCY")"; echo "$out"
  ours+=("$(sed -E 's/.*"seconds":([0-9.]+).*/\1/' <<< "$out")")
  start="$(now)"; curl --parallel --parallel-max "$CONCURRENCY" --silent --no-progress-meter --fail -K "$WORK/curl.cfg" 2>/dev/null; end="$(now)"
  secs="$(echo "$end - $start" | bc -l)"
  printf '{"tool":"curl --parallel --parallel-max %s","count":%s,"seconds":%.3f,"MBps":%.1f}\n' "$CONCURRENCY" "$COUNT" "$secs" "$(echo "$BYTES / $secs / 1000000" | bc -l)"
  theirs+=("$secs")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
m_ours="$(median "${ours[@]}")"; m_theirs="$(median "${theirs[@]}")"
printf 'median seconds: imagepipe %.3f, curl %.3f; throughput ratio imagepipe/curl = %.2fx\n' "$m_ours" "$m_theirs" "$(echo "$m_theirs / $m_ours" | bc -l)"
