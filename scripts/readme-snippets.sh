#!/usr/bin/env bash
# Writes each ```swift block (fence at the start of a line, exactly "```swift") of README.md and of
# every DocC article (Sources/*/*.docc/*.md) to a program of its own under Examples/Usage/ReadmeSnippets,
# replacing what was there, so the example package compiles the documentation's code exactly as a
# reader copies it:
#   README.md                                  → ReadmeSnippets/readmeNN/main.swift
#   Sources/<Module>/<Catalogue>.docc/<Page>.md → ReadmeSnippets/docc-<Catalogue>-<Page>-NN/main.swift
# A block that is not a whole program (Package.swift lines, a fragment of a test, shell, URLs) takes
# another fence (```text, ```sh or a bare ```), which this script leaves alone.
set -euo pipefail
shopt -s nullglob
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/Examples/Usage/ReadmeSnippets"
rm -rf "$out"
mkdir -p "$out"

# extract FILE PREFIX: the file's swift blocks into $out/PREFIXNN/main.swift.
extract() {
    local file="$1" prefix="$2"
    # The folder names become SwiftPM target names: letters, digits, `-` and `_` only.
    if [[ ! "$prefix" =~ ^[A-Za-z][A-Za-z0-9_-]*$ ]]; then
        echo "${file#"$root"/}: cannot name its snippets '${prefix}NN' (letters, digits, - and _ only)" >&2
        exit 1
    fi
    awk -v out="$out" -v prefix="$prefix" -v name="${file#"$root"/}" '
        /^```swift[[:space:]]*$/ {
            n++
            dir = sprintf("%s/%s%02d", out, prefix, n)
            system("mkdir -p \"" dir "\"")
            file = dir "/main.swift"
            inside = 1
            next
        }
        inside && /^```[[:space:]]*$/ { inside = 0; close(file); next }
        inside { print > file }
        END { if (inside) { print name ": a ```swift block is not closed" > "/dev/stderr"; exit 1 } }
    ' "$file"
}

extract "$root/README.md" readme
for article in "$root"/Sources/*/*.docc/*.md; do
    catalogue="$(basename "$(dirname "$article")" .docc)"
    page="$(basename "$article" .md)"
    extract "$article" "docc-$catalogue-$page-"
done
echo "README.md: $(find "$out" -mindepth 1 -maxdepth 1 -name 'readme*' | wc -l) swift blocks," \
     "DocC catalogues: $(find "$out" -mindepth 1 -maxdepth 1 -name 'docc-*' | wc -l), written to $out"
