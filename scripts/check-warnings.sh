#!/usr/bin/env bash
# Fails when a build log has compiler warnings in the project's own code (dependencies excluded).
# The project builds with zero warnings; a warning is a bug report we have not read yet.
set -euo pipefail
log="$1"
if grep -E "^$(pwd)/(Sources|Tests|Examples|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u; then
  echo "error: the build has warnings (listed above); ImagePipe builds with zero warnings" >&2
  exit 1
fi
echo "warnings: none"
