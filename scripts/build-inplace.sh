#!/usr/bin/env bash
# Build pyth._th for working in the tree, replacing the in-place module atomically (a new file
# renamed over the old one), so running Python processes that loaded the old one keep working.
set -euo pipefail
cd "$(dirname "$0")/.."
python setup.py -q build_ext -j 2 >/dev/null
so=$(ls build/lib*/pyth/_th*.so | head -1)
cp "$so" "pyth/.$(basename "$so").tmp"
mv "pyth/.$(basename "$so").tmp" "pyth/$(basename "$so")"
echo "built pyth/$(basename "$so")"
