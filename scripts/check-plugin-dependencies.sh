#!/usr/bin/env bash
# Fails when the package at $1, which depends on ImagePipe's library products with the Service trait
# off, resolves any of the server stack: a plugin or library user must not fetch or build it.
set -euo pipefail
package=${1:?package path}
deps=$(swift package show-dependencies --package-path "$package" 2>/dev/null)
server='hummingbird|swift-nio|swift-argument-parser|swift-crypto|swift-prometheus|swift-service-lifecycle|async-http-client'
if echo "$deps" | grep -qiE "$server"; then
  echo "error: $package resolves server packages it does not use:" >&2
  echo "$deps" >&2
  exit 1
fi
# The first dependency line is ImagePipe itself; the rest are what it brings.
echo "$package resolves ImagePipe and $(($(echo "$deps" | grep -c '<') - 1)) other packages, none of the server stack"
