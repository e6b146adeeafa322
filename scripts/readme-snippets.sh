#!/usr/bin/env bash
# Writes each ```swift block of README.md (fences at the start of a line) to
# Examples/Usage/ReadmeSnippets/readmeNN/main.swift, replacing what was there, so the example package
# compiles the README's code exactly as a reader copies it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/Examples/Usage/ReadmeSnippets"
rm -rf "$out"
mkdir -p "$out"
awk -v out="$out" '
    /^```swift[[:space:]]*$/ {
        n++
        dir = sprintf("%s/readme%02d", out, n)
        system("mkdir -p \"" dir "\"")
        file = dir "/main.swift"
        inside = 1
        next
    }
    inside && /^```[[:space:]]*$/ { inside = 0; close(file); next }
    inside { print > file }
    END { if (inside) { print "README.md: a ```swift block is not closed" > "/dev/stderr"; exit 1 } }
' "$root/README.md"
echo "README.md: $(ls "$out" | wc -l) swift blocks written to $out"
