#!/usr/bin/env bash
# The studio's real window on the GPU machine: builds the studio with Qt and
# OpenCV there and runs it on Qt's eglfs platform with the eglfs_pbuffer
# device integration (tools/eglfs_pbuffer): the window is drawn by the GPU's
# own OpenGL (NVIDIA EGL, device platform) into a 1920x1080 pbuffer, since the
# machine has no X server with NVIDIA's GLX and no KMS device. It runs
#   - gui.live_preview_gpu (tests/gui/test_live_preview_gpu.cpp): an 8K
#     photograph, 200 designer edits through cuda/auto, the shown texture
#     checked against the CPU reference, frame-time median and p95, and the
#     fallback after a refused GL registration;
#   - filterstudio-frame-bench: the frame targets on the same GPU (EGL);
#   - the CUDA-GL interop tests (EGL);
#   - the studio itself, for a screenshot of the window ($OUT/window.png).
# Carried (see the device tool's `carry`): .deps and .gl from
# scripts/device/prepare_carry.sh, .studio/qt.tar.xz from scripts/device/pack_studio.sh.
#   run: bash scripts/device/window_on_gpu.sh   carry: [".deps", ".gl", ".studio/qt.tar.xz"]
# ALL=1 builds every target and runs every GPU test (ctest -L gpu) first;
# FRAMES=0 leaves out the frame benchmark; LESSONS=1 also plays Help > Lessons with
# the GPU (tests/gui/test_lessons.cpp) and keeps lesson 2's window and step.
# VIDEO=1 plays a 3840x2160 stream of JPEG frames through cuda/auto (interop) and the
# fastest CPU mode in the window, then in the race view, for Sobel magnitude and
# Gaussian 15 (tests/gui/test_video_gpu.cpp): fps, decoder rate and per-frame split in
# video_test.txt and the summary, the race in race.png; the frame benchmark is left out
# (FRAMES=1 keeps it). The carried OpenCV has no videoio (FFmpeg), so the frames are
# decoded with imdecode on the video source's thread rather than read from a file.
# Results: $OUT/summary.txt first, then window_test.txt, frames.txt/.csv, window.png.
set -u -o pipefail
source "$(dirname "$0")/common.sh"
unpack_carried_qt

# ALL=1 builds every target and runs every GPU test of this build first.
targets="filterstudio test_gui_live_preview_gpu filterstudio-frame-bench fs_gl_interop_tests"
[ "${LESSONS:-0}" = 1 ] && targets="$targets test_gui_lessons"
[ "${VIDEO:-0}" = 1 ] && targets="$targets test_gui_video_gpu" && FRAMES=${FRAMES:-0}
[ "${ALL:-0}" = 1 ] && targets=
start=$(date +%s)
cmake -G Ninja -S . -B build-studio -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH=$root/usr -DOpenCV_DIR=$lib/cmake/opencv4 -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
  -DCMAKE_INCLUDE_PATH="$PWD/.deps/include;$root/usr/include" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
  >"$OUT/build.log" 2>&1 &&
  LD_LIBRARY_PATH=$libs ninja -C build-studio ${targets} >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error|FAILED|not found|NOTFOUND" "$OUT/build.log" | head -40 | tee -a "$S"; exit 1; }
say "studio built in $(( $(date +%s) - start )) s"
rm -f "$OUT/build.log"  # $OUT brings back at most 8 files

# The plugin path lets the offscreen GUI tests among them find Qt's platforms. The two
# GUI tests that draw with the GPU need eglfs (the carried Qt loads no other platform):
# they run below, in the real window.
[ "${ALL:-0}" = 1 ] && LD_LIBRARY_PATH=$libs QT_PLUGIN_PATH=$lib/qt6/plugins FONTCONFIG_FILE=$root/fonts.conf \
  gpu_ctest build-studio -E '^gui\.(live_preview|video)_gpu$'

build-studio/tests/gpu/fs_gl_interop_tests >"$OUT/interop_tests.txt" 2>&1
say "interop tests (EGL) exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/interop_tests.txt" | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure|error" "$OUT/interop_tests.txt" | head -10 | tee -a "$S"

python3 -c "import cv2; cv2.imwrite('/tmp/building-8k.png', cv2.resize(cv2.imread('resources/samples/building.jpg'), (7680, 4320), interpolation=cv2.INTER_CUBIC))"
export LD_LIBRARY_PATH=$libs QT_PLUGIN_PATH=$lib/qt6/plugins FONTCONFIG_FILE=$root/fonts.conf
export QT_QPA_PLATFORM=eglfs QT_QPA_EGLFS_INTEGRATION=eglfs_pbuffer QT_QPA_EGLFS_DISABLE_INPUT=1 HOME=/tmp/studio-home
timeout 300 build-studio/tests/gui/test_gui_live_preview_gpu -o "$OUT/window_test.txt,txt" >/tmp/window_stdout.txt 2>&1
say "window test exit $?"
grep -E "^(PASS|FAIL|SKIP|QWARN|QDEBUG|QINFO)|Totals|edits|frame|kernel median|status bar|GPU:|largest" "$OUT/window_test.txt" | head -40 | tee -a "$S"

if [ "${LESSONS:-0}" = 1 ]; then
  mkdir -p /tmp/lessons
  FS_SCREENSHOTS=/tmp/lessons FS_SCREEN_SIZE=1920x1080 timeout 240 build-studio/tests/gui/test_gui_lessons >/tmp/lessons.txt 2>&1
  say "lessons with the GPU exit $?: $(grep -E '^Totals' /tmp/lessons.txt)"
  grep -E "^FAIL|Loc:" /tmp/lessons.txt | head -10 | tee -a "$S"
  cp /tmp/lessons/lesson-2-window.png /tmp/lessons/lesson-2-step.png "$OUT/" 2>/dev/null
fi

if [ "${VIDEO:-0}" = 1 ]; then
  FS_VIDEO_SCREENSHOT="$OUT/race.png" timeout 300 build-studio/tests/gui/test_gui_video_gpu -o "$OUT/video_test.txt,txt" \
    >/tmp/video_stdout.txt 2>&1
  say "video test exit $?"
  grep -E "^(PASS|FAIL|SKIP)|Totals|^QINFO.*(video|race labels)|Loc:" "$OUT/video_test.txt" | head -30 | tee -a "$S"
fi

if [ "${FRAMES:-1}" = 1 ]; then
  build-studio/tools/framebench/filterstudio-frame-bench --csv "$OUT/frames.csv" >"$OUT/frames.txt" 2>&1
  say "frame bench exit $?"
  tail -13 "$OUT/frames.txt" | tee -a "$S"
  # The same frame with an image the size of the view: how much of the frame grows with the texture.
  build-studio/tools/framebench/filterstudio-frame-bench --size 1920x1080 --csv "$OUT/frames-1080p.csv" >/tmp/frames-1080p.txt 2>&1
  say "frame bench at 1920x1080 exit $?"
  tail -13 /tmp/frames-1080p.txt | tee -a "$S"
fi

# The window itself, for the eye: an 8K photograph through cuda/auto.
[ -e /tmp/building-8k.png ] && timeout 120 build-studio/ui/filterstudio /tmp/building-8k.png --mode cuda/auto --kernel sobel-mag:3 --view split \
    --screenshot "$OUT/window.png" >/tmp/studio.txt 2>&1
say "studio screenshot exit $?"
grep -v "qt.core.plugin.loader" /tmp/studio.txt | head -10 | tee -a "$S"
