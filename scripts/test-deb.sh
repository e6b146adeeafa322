#!/usr/bin/env bash
# `make test-deb`: packages an imagepipe binary with scripts/make-deb.sh, installs the package with
# dpkg -i, runs `imagepipe serve` from the installed files as the imagepipe user (runuser: no
# systemd needed), checks /health and one image, stops it with SIGTERM, purges the package and
# checks nothing of it is left: files, directories, the user and group (after a reinstall over
# itself, which must keep the user and an edited /etc/default/imagepipe).
#
#   scripts/test-deb.sh [BINARY]        # IMAGEPIPE=BINARY (default .build/debug/imagepipe,
#                                       # packaged with its toolchain libraries: test only)
#
# Needs root (or sudo) and a machine without the package or an imagepipe user of its own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BINARY="$(realpath "${1:-${IMAGEPIPE:-$ROOT/.build/debug/imagepipe}}")"

if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "test-deb: needs root or sudo (dpkg -i)" >&2; exit 1; }
  exec sudo --preserve-env=IMAGEPIPE "$0" "$@"
fi
known() {  # dpkg has the package in any state but not-installed
  local status
  status=$(dpkg-query -W -f '${Status}' imagepipe 2>/dev/null || true)
  [[ -n "$status" && "$status" != *" not-installed" ]]
}
if known; then
  echo "test-deb: the imagepipe package is already installed here; not touching it" >&2; exit 1
fi
if getent passwd imagepipe >/dev/null || getent group imagepipe >/dev/null; then
  echo "test-deb: an imagepipe user or group exists already; not touching it" >&2; exit 1
fi

WORK="$(mktemp -d /tmp/imagepipe-test-deb.XXXXXX)"
SERVER_PID=""
INSTALLED=0
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if ((INSTALLED)); then dpkg --purge imagepipe >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "test-deb: FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
fail() { echo "test-deb: FAIL: $*" >&2; [[ -f "$WORK/serve.log" ]] && tail -20 "$WORK/serve.log" >&2; exit 1; }

DEB=$(DEB_DIR="$WORK" DEB_ALLOW_TOOLCHAIN_LIBS=1 "$ROOT/scripts/make-deb.sh" "$BINARY")
echo "test-deb: built $(basename "$DEB") ($(du -h "$DEB" | cut -f1)) from $BINARY"

# --- install ----------------------------------------------------------------------------------------
INSTALLED=1
dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log" >&2; fail "dpkg -i"; }
uid=$(id -u imagepipe) || fail "postinst made no imagepipe user"
((uid < 1000)) || fail "imagepipe is not a system user (uid $uid)"
[[ "$(getent passwd imagepipe | cut -d: -f7)" == */nologin ]] || fail "imagepipe has a login shell"
[[ -x /usr/bin/imagepipe ]] || fail "no /usr/bin/imagepipe"
[[ -x /usr/libexec/imagepipe/imagepipe-serve ]] || fail "no /usr/libexec/imagepipe/imagepipe-serve"
[[ -f /lib/systemd/system/imagepipe.service ]] || fail "no systemd unit"
grep -qx /etc/default/imagepipe /var/lib/dpkg/info/imagepipe.conffiles || fail "/etc/default/imagepipe is no conffile"
for variable in IMAGEPIPE_PORT IMAGEPIPE_KEY IMAGEPIPE_SALT IMAGEPIPE_REDIS IMAGEPIPE_CACHE_DIR; do
  grep -q "^#$variable=\$" /etc/default/imagepipe || fail "/etc/default/imagepipe lacks $variable"
done
! grep -q 'IMAGEPIPE_HELP\|IMAGEPIPE_VERSION' /etc/default/imagepipe || fail "/etc/default/imagepipe lists --help or --version"
[[ "$(stat -c '%U:%G %a' /var/cache/imagepipe)" == "imagepipe:imagepipe 750" ]] || fail "/var/cache/imagepipe: $(stat -c '%U:%G %a' /var/cache/imagepipe)"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify /lib/systemd/system/imagepipe.service >"$WORK/verify.log" 2>&1 || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify"; }
fi

# --- serve as the imagepipe user ----------------------------------------------------------------------
mkdir "$WORK/images"
cp "$ROOT/Examples/images/badge.png" "$WORK/images/"
chmod 0755 "$WORK" "$WORK/images"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd / && exec runuser -u imagepipe -- /usr/bin/imagepipe serve --port "$PORT" --allow-unsigned \
  --local-root "$WORK/images" --cache-dir /var/cache/imagepipe) >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/health" && break; sleep 0.1; done
[[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/health")" == 200 ]] || fail "/health"
# runuser stays as the server's parent (its PAM session); the server is its child.
# `imagepipe serve` replaced itself with the service's executable: same process, its name.
server=$(pgrep -P "$SERVER_PID" -x imagepipe-serve) || fail "no imagepipe-serve process under runuser"
[[ "$(ps -o user= -p "$server")" == imagepipe ]] || fail "the server runs as $(ps -o user= -p "$server")"
status=$(curl -s -o "$WORK/thumb.png" -w '%{http_code} %{content_type}' "http://127.0.0.1:$PORT/insecure/rs:fit:32:32/plain/local:///badge.png@png")
[[ "$status" == "200 image/png" ]] || fail "the image answered $status"
python3 - "$WORK/thumb.png" <<'PY' || fail "the image is no 32-pixel PNG"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert max(width, height) == 32, (width, height)
PY
[[ -n "$(find /var/cache/imagepipe -type f -user imagepipe -print -quit)" ]] || fail "nothing written to /var/cache/imagepipe"
kill -TERM "$server"
wait "$SERVER_PID" || fail "the server did not exit 0 on SIGTERM (runuser's status $?)"
SERVER_PID=""
echo "test-deb: installed; imagepipe serve ran as imagepipe (uid $uid): /health 200, a 32 px PNG, disk cache written"

# --- reinstall: an upgrade in place keeps the user and the operator's settings --------------------
echo "IMAGEPIPE_QUIET=1" >>/etc/default/imagepipe
dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log" >&2; fail "dpkg -i over the installed package"; }
grep -qx "IMAGEPIPE_QUIET=1" /etc/default/imagepipe || fail "reinstalling lost an edit of /etc/default/imagepipe"
[[ "$(id -u imagepipe)" == "$uid" ]] || fail "reinstalling changed the imagepipe user"
echo "test-deb: reinstalled over itself; the user and an edited /etc/default/imagepipe kept"

# --- purge --------------------------------------------------------------------------------------------
dpkg --purge imagepipe >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log" >&2; fail "dpkg --purge"; }
INSTALLED=0
! known || fail "dpkg still knows the package"
! getent passwd imagepipe >/dev/null || fail "the imagepipe user is left"
! getent group imagepipe >/dev/null || fail "the imagepipe group is left"
for path in /usr/bin/imagepipe /lib/systemd/system/imagepipe.service /etc/default/imagepipe \
  /var/cache/imagepipe /var/lib/imagepipe /usr/share/doc/imagepipe /usr/share/lintian/overrides/imagepipe; do
  [[ ! -e "$path" ]] || fail "$path is left"
done
left=$(find /etc /var /usr /lib /opt /run /tmp -xdev -uid "$uid" -print 2>/dev/null | head -5 || true)
[[ -z "$left" ]] || fail "files of uid $uid are left: $left"
echo "test-deb: purged; no files, directories, user or group left"
