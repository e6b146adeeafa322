#!/usr/bin/env bash
# Fails when a build log has compiler warnings in the project's own code (dependencies excluded).
# The project builds with zero warnings; a warning is a bug report we have not read yet.
set -euo pipefail
log="$1"
# A warning inside a macro's expansion (`#expect(try …)`) is reported as "macro expansion #expect:…",
# with the source line on the note after it; only the project's own code expands macros here.
if grep -E -A1 "^($(pwd)/(Sources|Tests|Examples|Benchmarks)/[^:]+|macro expansion #[A-Za-z]+):[0-9]+:[0-9]+: warning:" "$log" | grep -v '^--$' | sort -u; then
  echo "error: the build has warnings (listed above); ImagePipe builds with zero warnings" >&2
  exit 1
fi
echo "warnings: none"
