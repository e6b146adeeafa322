#!/usr/bin/env bash
# `make test-usage`: builds Examples/Usage the way a newcomer's package is built — outside the
# repository, beside a checkout in a folder not named ImagePipe, through the dependency line
# Getting started shows, verbatim — then checks it resolves none of the server stack and runs its
# batch thumbnailer on the sample images. The copy lives in IMAGEPIPE_USAGE_DIR (default: a folder
# of the system's temporary directory named after this checkout), kept between runs so its build is
# incremental — except under CI (a fresh clone each time, so a new folder of about 470 MB each run),
# where it is removed on exit. The README's and DocC's Swift blocks come from scripts/readme-snippets.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${IMAGEPIPE_USAGE_DIR:-${TMPDIR:-/tmp}/imagepipe-usage-$(printf '%s' "$root" | md5sum | cut -c1-8)}"
app="$work/MyApp"
line='.package(name: "ImagePipe", path: "../imagepipe", traits: []),'
guide="$root/Sources/ImagePipe/ImagePipe.docc/GettingStarted.md"
grep -qF "$line" "$guide" || { echo "error: ${guide#"$root"/} no longer shows: $line" >&2; exit 1; }

mkdir -p "$app"
out=
if [[ -n "${CI:-}" && -z "${IMAGEPIPE_USAGE_DIR:-}" ]]; then
  trap 'rm -rf "$work" ${out:+"$out"}' EXIT
else
  trap 'rm -rf ${out:+"$out"}' EXIT
fi
ln -sfn "$root" "$work/imagepipe"
# The package's sources, as in the repository; its .build stays from the last run.
find "$app" -mindepth 1 -maxdepth 1 ! -name .build ! -name Package.resolved -exec rm -rf {} +
(cd "$root/Examples/Usage" && tar --exclude=./.build --exclude=./Package.resolved -cf - .) | (cd "$app" && tar -xf -)
in_repo='.package(name: "ImagePipe", path: "../..", traits: []),'
grep -qF "$in_repo" "$app/Package.swift" || { echo "error: Examples/Usage/Package.swift no longer has: $in_repo" >&2; exit 1; }
sed -i "s|$(printf '%s' "$in_repo" | sed 's/[][\.*^$|]/\\&/g')|$line|" "$app/Package.swift"
grep -qF "$line" "$app/Package.swift"

swift build --package-path "$app"
"$root/scripts/check-plugin-dependencies.sh" "$app"
out=$(mktemp -d)
"$app/.build/debug/BatchThumbnailer" "$root/Examples/images" "$out" 64
test "$(ls "$out" | wc -l)" -eq "$(ls "$root/Examples/images" | wc -l)"
echo "Examples/Usage built outside the repository ($app), through Getting started's dependency line"
