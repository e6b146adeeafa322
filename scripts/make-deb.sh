#!/usr/bin/env bash
# Builds imagepipe_<version>_amd64.deb from an imagepipe binary (`make deb`: the release build):
# /usr/bin/imagepipe and the service it runs, /usr/libexec/imagepipe/imagepipe-serve, a hardened
# systemd unit for `imagepipe serve` (packaging/deb), the
# conffile /etc/default/imagepipe listing every IMAGEPIPE_ variable of the binary's `serve`,
# maintainer scripts that create and remove the `imagepipe` user, and the runtime libraries
# declared: dpkg-shlibdeps for those the binary links, the shlibs entries of those it opens on
# first use (libcurl a dependency; the AVIF, HEIF, JPEG XL and SVG libraries recommended: without
# one, only that format is refused).
#
#   scripts/make-deb.sh [BINARY]        # IMAGEPIPE=BINARY; DEB_DIR=.build/deb; DEB_VERSION=(--version)
#                                       # DEB_MAINTAINER="Name <mail>" (DEBFULLNAME/DEBEMAIL, git's user)
#
# The version is the binary's own (`imagepipe --version`). A binary that needs libraries no
# Debian package provides (a debug build's Swift runtime from the toolchain) is refused unless
# DEB_ALLOW_TOOLCHAIN_LIBS=1: such a package runs only where that toolchain is installed, which is
# enough for `make test-deb` and nothing else.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BINARY="${1:-${IMAGEPIPE:-$ROOT/.build/release/imagepipe}}"
DEB_DIR="${DEB_DIR:-$ROOT/.build/deb}"
# The maintainer as dch finds one: DEBFULLNAME and DEBEMAIL, else git's user.
MAINTAINER="${DEB_MAINTAINER:-${DEBFULLNAME:-$(git -C "$ROOT" config user.name || echo ImagePipe)} <${DEBEMAIL:-$(git -C "$ROOT" config user.email || echo "$(id -un)@$(hostname -f)")}>}"
PACKAGING="$ROOT/packaging/deb"

[[ -x "$BINARY" ]] || { echo "make-deb: no imagepipe binary at $BINARY (make release, or IMAGEPIPE=PATH)" >&2; exit 1; }
# `imagepipe serve` runs the service's own executable, built beside the tool and installed in
# /usr/libexec/imagepipe, where the tool looks for it.
SERVE_BINARY="$(dirname "$BINARY")/imagepipe-serve"
[[ -x "$SERVE_BINARY" ]] || { echo "make-deb: no imagepipe-serve beside $BINARY (make release builds both)" >&2; exit 1; }
BINARIES=("$BINARY" "$SERVE_BINARY")
for tool in dpkg-deb dpkg-shlibdeps strip; do
  command -v "$tool" >/dev/null || { echo "make-deb: $tool is missing (apt-get install dpkg-dev binutils)" >&2; exit 1; }
done
VERSION="${DEB_VERSION:-$("$BINARY" --version)}"
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { echo "make-deb: '$VERSION' is not a Debian version" >&2; exit 1; }
ARCH="$(dpkg --print-architecture)"

WORK="$(mktemp -d /tmp/imagepipe-deb.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/imagepipe"
install -d "$STAGE/DEBIAN" "$STAGE/usr/bin" "$STAGE/usr/libexec/imagepipe" "$STAGE/lib/systemd/system" "$STAGE/etc/default" \
  "$STAGE/usr/share/doc/imagepipe" "$STAGE/usr/share/lintian/overrides"

# Stripped as Debian ships binaries: the DWARF and the symbol table, 100 MB of the release binary's 183.
strip --strip-unneeded -o "$STAGE/usr/bin/imagepipe" "$BINARY"
strip --strip-unneeded -o "$STAGE/usr/libexec/imagepipe/imagepipe-serve" "$SERVE_BINARY"
chmod 0755 "$STAGE/usr/bin/imagepipe" "$STAGE/usr/libexec/imagepipe/imagepipe-serve"
install -m 0644 "$PACKAGING/imagepipe.service" "$STAGE/lib/systemd/system/imagepipe.service"
install -m 0755 "$PACKAGING/postinst" "$PACKAGING/prerm" "$PACKAGING/postrm" "$STAGE/DEBIAN/"
install -m 0644 "$PACKAGING/lintian-overrides" "$STAGE/usr/share/lintian/overrides/imagepipe"
install -m 0644 "$ROOT/Sources/ImageServer/ImageServer.docc/TheService.md" "$STAGE/usr/share/doc/imagepipe/TheService.md"

# --- /etc/default/imagepipe: every `serve` flag as its variable, commented out ------------------
# Read off the binary's own help, so the file lists exactly the settings it packages. imgproxy's
# alias names are left out (their variables work, but each repeats a setting listed), and so is a
# default computed on the building machine (memory sizes, cores).
default_file() {
  cat <<'HEAD'
# Settings of the imagepipe service (imagepipe.service), as IMAGEPIPE_ variables: each is the
# `imagepipe serve` flag of the same name (--allow-source is IMAGEPIPE_ALLOW_SOURCE); repeatable
# flags take comma-separated lists, switches 1, true, yes or on. Uncomment and set what you need,
# then `systemctl restart imagepipe`. The service starts only with a key and salt (or
# IMAGEPIPE_ALLOW_UNSIGNED=1). This file holds secrets: it is readable by root alone, and systemd
# reads it before the service drops to the imagepipe user.
#
# The unit sets IMAGEPIPE_CACHE_DIR=/var/cache/imagepipe (disk cache on); set it empty here to keep
# results in memory only. `imagepipe serve --help` describes every flag.
HEAD
  "$BINARY" serve --help | awk '
    function flush() {
      if (name == "" || name == "help" || name == "version" || text ~ /^imgproxy.s name for/) { name = ""; return }
      sub(/[ ]+$/, "", text)
      if (text ~ /default/ && match(text, /[ ]*\(default: [^()]*\)$/) && index(substr(text, 1, RSTART), "default") > 0)
        text = substr(text, 1, RSTART - 1)
      variable = "IMAGEPIPE_" toupper(name); gsub(/-/, "_", variable)
      print ""
      line = "# --" name (value != "" ? " " value : "") ":"
      n = split(text, words, " ")
      for (i = 1; i <= n; i++) {
        if (length(line) + 1 + length(words[i]) > 98) { print line; line = "#  " words[i] } else line = line " " words[i]
      }
      print line
      print "#" variable "="
      name = ""
    }
    /^OPTIONS:/ { options = 1; next }
    !options { next }
    /^  (-[a-zA-Z], )?--[a-z]/ {
      flush()
      # "  -v, --name <value>      text": the text starts in column 27 when the names fit before it,
      # else on the next line.
      head = substr($0, 3); text = ""
      if (substr($0, 26, 1) == " " && substr($0, 27, 1) != "<" && length($0) > 26) { head = substr($0, 3, 23); text = substr($0, 27) }
      sub(/ +$/, "", head)
      sub(/^(-[a-zA-Z], )?--/, "", head)
      name = head; sub(/ .*$/, "", name)
      value = head; if (!sub(/^[^ ]+ /, "", value)) value = ""
      next
    }
    /^                          / { line = $0; sub(/^[ ]+/, "", line); text = text (text == "" ? "" : " ") line; next }
    { flush() }
    END { flush() }'
}
default_file > "$STAGE/etc/default/imagepipe"
chmod 0600 "$STAGE/etc/default/imagepipe"
grep -q '^#IMAGEPIPE_PORT=$' "$STAGE/etc/default/imagepipe" || { echo "make-deb: could not read the settings off '$BINARY serve --help'" >&2; exit 1; }

# --- documentation Debian asks for ----------------------------------------------------------------
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: ImagePipe"
  echo "Comment: /usr/bin/imagepipe and /usr/libexec/imagepipe/imagepipe-serve also hold, statically linked, the Swift runtime and Foundation"
  echo " (Apache-2.0 with the Runtime Library Exception) and the Swift packages named in the"
  echo " source's Package.swift (Apache-2.0 or MIT, each under its own copyright)."
  echo
  echo "Files: *"
  echo "Copyright: $(grep -m1 '^Copyright' "$ROOT/LICENSE" | sed 's/^Copyright (c) //')"
  echo "License: MIT"
  sed -n '/^Permission/,$p' "$ROOT/LICENSE" | sed 's/^$/./; s/^/ /'
} > "$STAGE/usr/share/doc/imagepipe/copyright"
{
  echo "imagepipe ($VERSION) unstable; urgency=medium"
  echo
  echo "  * Packaged from the ImagePipe source tree; its CHANGELOG.md says what changed."
  echo
  echo " -- $MAINTAINER  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$STAGE/usr/share/doc/imagepipe/changelog.gz"
chmod 0644 "$STAGE/usr/share/doc/imagepipe/"*

# --- runtime libraries ------------------------------------------------------------------------------
mkdir "$WORK/debian"
printf 'Source: imagepipe\n\nPackage: imagepipe\nArchitecture: %s\n' "$ARCH" > "$WORK/debian/control"
# dpkg-shlibdeps passes over a library no package owns (found through the binary's RUNPATH):
# those are looked for here.
# The package owning a library file, by its path or its target, with or without /usr in front
# (merged /usr: packages may name either).
owner() {
  local path candidates=()
  for path in "$1" "$(readlink -f "$1")"; do candidates+=("$path" "${path#/usr}" "/usr${path#/usr}"); done
  for path in "${candidates[@]}"; do dpkg -S "$path" 2>/dev/null | awk -F: 'NR == 1 { print $1 }' && return 0; done
  return 1
}
foreign=()
while read -r library; do
  owner "$library" >/dev/null || foreign+=("$library")
done < <(for binary in "${BINARIES[@]}"; do ldd "$binary"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)
if ((${#foreign[@]})) && [[ "${DEB_ALLOW_TOOLCHAIN_LIBS:-0}" != 1 ]]; then
  printf 'make-deb: no Debian package provides %s\n' "${foreign[@]}" >&2
  echo "make-deb: a debug build? package the release build (make deb), or set DEB_ALLOW_TOOLCHAIN_LIBS=1 for a test package" >&2
  exit 1
fi
if ! linked=$(cd "$WORK" && dpkg-shlibdeps -O -e"$STAGE/usr/bin/imagepipe" -e"$STAGE/usr/libexec/imagepipe/imagepipe-serve" 2>"$WORK/shlibdeps.err"); then
  cat "$WORK/shlibdeps.err" >&2
  echo "make-deb: dpkg-shlibdeps could not read the binary's library dependencies" >&2
  exit 1
fi
linked="${linked#shlibs:Depends=}"

# Libraries the binary opens on first use (dlopen) are no NEEDED entries: they are the sonames
# its strings name that it does not link. Each is declared through its package's shlibs entry.
needed=$(for binary in "${BINARIES[@]}"; do readelf -d "$binary"; done | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
lazy_depends=(); lazy_recommends=()
while read -r soname; do
  grep -qxF "$soname" <<<"$needed" && continue
  path=$(ldconfig -p | awk -v s="$soname" '$1 == s && !found++ { print $NF }')
  [[ -n "$path" ]] || { echo "make-deb: $soname (opened on first use) is not installed here; install it to declare it" >&2; exit 1; }
  package=$(owner "$path") || { echo "make-deb: no Debian package provides $path" >&2; exit 1; }
  name="${soname%%.so.*}"; major="${soname#*.so.}"
  shlibs=(/var/lib/dpkg/info/"$package".shlibs /var/lib/dpkg/info/"$package:$ARCH".shlibs)
  entry=$(cat "${shlibs[@]}" 2>/dev/null | awk -v n="$name" -v m="$major" '$1 == n && $2 == m && !found++ { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' || true)
  [[ "$name" == libcurl ]] && lazy_depends+=("${entry:-$package}") || lazy_recommends+=("${entry:-$package}")
done < <(grep -a -h -o -E 'lib[a-z0-9_+-]+\.so\.[0-9][0-9.]*' "${BINARIES[@]}" | sort -u)
depends="adduser, $linked"
for entry in "${lazy_depends[@]}"; do depends+=", $entry"; done
recommends=$(IFS=,; echo "${lazy_recommends[*]}")
recommends="${recommends//,/, }"

# --- control ----------------------------------------------------------------------------------------
(cd "$STAGE" && find usr lib etc -type f ! -path etc/default/imagepipe -print0 | sort -z | xargs -0 md5sum) > "$STAGE/DEBIAN/md5sums"
echo /etc/default/imagepipe > "$STAGE/DEBIAN/conffiles"
{
  echo "Package: imagepipe"
  echo "Version: $VERSION"
  echo "Architecture: $ARCH"
  echo "Maintainer: $MAINTAINER"
  echo "Installed-Size: $(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)"
  echo "Depends: $depends"
  [[ -z "$recommends" ]] || echo "Recommends: $recommends"
  echo "Section: graphics"
  echo "Priority: optional"
  echo "Description: image loading pipeline and imgproxy-compatible image service"
  echo " imagepipe fetches, decodes, transforms and encodes images (PNG, JPEG, WebP,"
  echo " GIF, AVIF, HEIF, TIFF, BMP, JPEG XL, SVG) from the command line, and serves"
  echo " them over HTTP with imgproxy's URL grammar and signatures (imagepipe serve)."
  echo " The imagepipe.service unit runs the server as the imagepipe user, hardened,"
  echo " with its settings in /etc/default/imagepipe."
} > "$STAGE/DEBIAN/control"

mkdir -p "$DEB_DIR"
DEB="$DEB_DIR/imagepipe_${VERSION}_${ARCH}.deb"
# xz at level 1: on the release binary a third of level 3's CPU time (10 s against 27 s) for 4 % more
# bytes (28.0 MB against 26.8 MB).
dpkg-deb --root-owner-group -Zxz -z1 --build "$STAGE" "$DEB" >/dev/null
echo "$DEB"
