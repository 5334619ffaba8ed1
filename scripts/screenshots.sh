#!/usr/bin/env bash
# Screenshots of the studio for the README: the default and Presentation layouts at 1024x768 (a classroom
# projector) and 1920x1080, on the bundled photograph building.jpg with a Laplacian (its zero-sum result
# is shown as |v| scaled to fit) after every mode has been timed. Each is taken under Xvfb on a screen of
# the window's size and written to docs/ as a palette PNG (pngquant, from scripts/deps.sh). Then, at both
# sizes, the second lesson of Help > Lessons (the window and its step) and the Benchmark dialog with its
# results, drawn by the GUI tests that run them (FS_SCREENSHOTS, FS_SCREEN_SIZE); and the race view of a
# video at 1920x1080 (gui.video).
#
#   bash scripts/screenshots.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
studio="$build/ui/filterstudio"
[ -x "$studio" ] || { echo "screenshots: $studio is missing; build the studio first (scripts/build.sh)" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "screenshots: xvfb-run is missing (Debian package xvfb)" >&2; exit 2; }
command -v pngquant >/dev/null || { echo "screenshots: pngquant is missing (Debian package pngquant)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
photo=resources/samples/building.jpg
for size in 1024x768 1920x1080; do
  for layout in default presentation; do
    out="docs/screenshot-$layout-$size.png"
    flags=()
    [ "$layout" = presentation ] && flags+=(--presentation)
    # A fresh HOME: no saved layout or settings. QPainter draws the view (no GL context), so the picture
    # includes the view's caption as the screen shows it.
    HOME="$work/home-$layout-$size" QT_XCB_GL_INTEGRATION=none \
      xvfb-run -a -s "-screen 0 ${size}x24" \
      "$studio" "$photo" --size "$size" --mode cpu/parallel --kernel laplacian-4 --all-modes "${flags[@]}" \
      --screenshot "$work/shot.png"
    pngquant --force --quality 20-60 --nofs --speed 1 --output "$out" "$work/shot.png"
    echo "screenshots: $out ($(stat -c %s "$out") bytes)"
  done
done
lessons="$build/tests/gui/test_gui_lessons" widgets="$build/tests/gui/test_gui_teaching_widgets"
for size in 1024x768 1920x1080; do
  mkdir -p "$work/$size"
  for test in "$lessons" "$widgets"; do
    [ -x "$test" ] || { echo "screenshots: $test is missing; build the tests first" >&2; exit 2; }
    HOME="$work/home-test-$size" QT_QPA_PLATFORM=offscreen FS_SCREENSHOTS="$work/$size" FS_SCREEN_SIZE="$size" \
      "$test" >"$work/test.log" 2>&1 || { cat "$work/test.log" >&2; exit 1; }
  done
  for pair in lesson-2-window:lesson lesson-2-step:lesson-step benchmark-dialog:benchmark; do
    out="docs/screenshot-${pair#*:}-$size.png"
    pngquant --force --quality 20-60 --nofs --speed 1 --output "$out" "$work/$size/${pair%%:*}.png"
    echo "screenshots: $out ($(stat -c %s "$out") bytes)"
  done
done
# The race view of a video at 1920x1080, as gui.video draws it (a photograph panned, Sobel magnitude).
video="$build/tests/gui/test_gui_video"
[ -x "$video" ] || { echo "screenshots: $video is missing; build the tests first" >&2; exit 2; }
mkdir -p "$work/video"
HOME="$work/home-video" QT_QPA_PLATFORM=offscreen FS_SCREENSHOTS="$work/video" \
  "$video" raceViewShowsTwoFrameRates >"$work/test.log" 2>&1 || { cat "$work/test.log" >&2; exit 1; }
out=docs/screenshot-race-1920x1080.png
pngquant --force --quality 20-60 --nofs --speed 1 --output "$out" "$work/video/screenshot-race-1920x1080.png"
echo "screenshots: $out ($(stat -c %s "$out") bytes)"
