#!/usr/bin/env bash
# Runs each test target in its own process (the build must be done: `swift build --build-tests`).
# Separate processes keep one target's blocking work (child processes, local servers, timeouts)
# from starving another's tasks on the shared cooperative thread pool. Ends with one summary line.
set -uo pipefail
targets=$(grep -oE 'testTarget\(name: "[^"]+"' Package.swift | sed -E 's/.*"(.*)"/\1/')
passed=0; failed=0; status=0
for target in $targets; do
  echo "=== $target"
  log=$(mktemp)
  swift test --skip-build --filter "^$target\." 2>&1 | tee "$log"
  code=${PIPESTATUS[0]}
  line=$(grep -E 'Test run with [0-9]+ tests' "$log" | tail -1)
  count=$(sed -E 's/.*Test run with ([0-9]+) tests.*/\1/' <<<"$line")
  issues=$(grep -oE 'failed after [0-9.]+ seconds with [0-9]+ issues?' <<<"$line" | wc -l)
  if [ "$code" -ne 0 ] || [ -z "$line" ] || [ "$issues" -ne 0 ]; then
    echo "FAILED: $target" >&2
    status=1
    failed=$((failed + ${count:-0}))
  else
    passed=$((passed + count))
  fi
  rm -f "$log"
done
echo "$passed passed, $failed failed"
exit $status
