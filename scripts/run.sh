#!/usr/bin/env bash
# The main job: dependencies, build, then the studio on a bundled photograph.
# Without a display it runs the command-line tool on the same photograph instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
sample=tests/data/fruits.jpg
if [ -x build/ui/filterstudio ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec build/ui/filterstudio "$sample"
fi
echo "No display: running the command-line tool instead (Sobel magnitude of $sample)."
mkdir -p out
build/tools/cli/filterstudio-cli modes
build/tools/cli/filterstudio-cli apply -i "$sample" -o out/fruits-sobel-mag.png -k sobel-mag --backend cpu --mode parallel --overwrite
echo "Wrote out/fruits-sobel-mag.png"
