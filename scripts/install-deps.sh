#!/usr/bin/env bash
# Installs the Debian packages ImagePipe's plugins build against, only when something is missing.
# pkg-config answers for the libraries that ship a .pc file; giflib has none on Debian, so its
# header is looked for instead.
set -euo pipefail

packages=()
need() { packages+=("$1"); }

command -v pkg-config >/dev/null 2>&1 || need pkg-config
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists libpng || need libpng-dev
  pkg-config --exists libdeflate || need libdeflate-dev
  pkg-config --exists libjpeg || need libjpeg-dev
  pkg-config --exists libwebp libwebpdemux libwebpmux || need libwebp-dev
  pkg-config --exists libcurl || need libcurl4-openssl-dev
  pkg-config --exists lcms2 || need liblcms2-dev
  pkg-config --exists libavif || need libavif-dev
  # CodersAVIF's shim includes dav1d's header to turn the AV1 decoder's stderr logging off.
  pkg-config --exists dav1d || need libdav1d-dev
  pkg-config --exists libheif || need libheif-dev
  pkg-config --exists libtiff-4 || need libtiff-dev
  pkg-config --exists hiredis || need libhiredis-dev
  pkg-config --exists libjxl || need libjxl-dev
  pkg-config --exists librsvg-2.0 || need librsvg2-dev
else
  packages+=(libpng-dev libdeflate-dev libjpeg-dev libwebp-dev libcurl4-openssl-dev liblcms2-dev libavif-dev libdav1d-dev libheif-dev libtiff-dev libhiredis-dev libjxl-dev librsvg2-dev)
fi
[ -f /usr/include/gif_lib.h ] || need libgif-dev
# The loader tests serve HTTPS through `openssl s_server` and make gzip bodies with gzip.
command -v openssl >/dev/null 2>&1 || need openssl
command -v gzip >/dev/null 2>&1 || need gzip
# scripts/public-api.sh reads the symbol graphs with jq.
command -v jq >/dev/null 2>&1 || need jq
# The AVIF and HEIF tests make their files with the reference encoders and compare pixels with
# the reference decoders.
command -v avifenc >/dev/null 2>&1 && command -v avifdec >/dev/null 2>&1 || need libavif-bin
command -v heif-enc >/dev/null 2>&1 && command -v heif-convert >/dev/null 2>&1 || need libheif-examples
# The JPEG XL and SVG tests make and check their files with cjxl/djxl and rsvg-convert.
command -v cjxl >/dev/null 2>&1 && command -v djxl >/dev/null 2>&1 || need libjxl-tools
command -v rsvg-convert >/dev/null 2>&1 || need librsvg2-bin
# The Redis cache tests start their own redis-server, and twemproxy (nutcracker) in front of two.
command -v redis-server >/dev/null 2>&1 || need redis-server
command -v nutcracker >/dev/null 2>&1 || need nutcracker
# `make deb` reads library dependencies with dpkg-shlibdeps and strips with binutils' strip.
command -v dpkg-shlibdeps >/dev/null 2>&1 || need dpkg-dev
command -v strip >/dev/null 2>&1 || need binutils
# The package's maintainer scripts create and remove its user with adduser (make test-deb).
command -v adduser >/dev/null 2>&1 || need adduser
# The fleet test (scripts/fleet-test.sh) puts nginx in front of three servers and loads them with wrk.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need nginx-light
command -v wrk >/dev/null 2>&1 || need wrk
command -v redis-cli >/dev/null 2>&1 || need redis-tools

if [ ${#packages[@]} -eq 0 ]; then
  echo "deps: all system libraries present (libpng, libdeflate, libjpeg-turbo, libwebp, giflib, libcurl, lcms2, libavif, libheif, libtiff, hiredis, libjxl, librsvg; redis-server, nutcracker, nginx, wrk, dpkg-dev)"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "deps: need root or sudo to install: ${packages[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "deps: installing missing Debian packages with apt-get: ${packages[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}"
echo "deps: done"
