#!/usr/bin/env bash
# The studio's real window on the GPU machine: builds the studio with Qt and
# OpenCV there, starts an X server (Xvfb) whose windows the NVIDIA driver
# draws through GLX, and runs
#   - gui.live_preview_gpu (tests/gui/test_live_preview_gpu.cpp): an 8K
#     photograph, 200 designer edits through cuda/auto, the shown texture
#     checked against the CPU reference, frame-time median and p95, and the
#     fallback after a refused GL registration;
#   - filterstudio-frame-bench: the frame targets on the same GPU (EGL);
#   - the CUDA-GL interop tests (EGL);
#   - the studio itself, for a screenshot of the window ($OUT/window.png).
# Carried (see the device tool's `carry`): .deps and .gl from
# scripts/device/prepare_carry.sh, .studio from scripts/device/pack_studio.sh.
#   run: bash scripts/device/window_on_gpu.sh   carry: [".studio/x11.tar.xz"]
#   then, on the still-warm machine, the same with [".deps", ".gl", ".studio/qt.tar.xz"]
# Results: $OUT/summary.txt first, then window_test.txt, frames.txt/.csv, window.png.
# The window needs an X server where NVIDIA's GLX finds a framebuffer
# configuration: on the H100 machine (2026-11-25) it finds none on Xvfb and
# the studio stops with "Could not initialize GLX" (docs/performance.md).
set -u -o pipefail
source "$(dirname "$0")/common.sh"
root=/opt/fsroot
lib=$root/usr/lib/x86_64-linux-gnu
libs=$lib:$root/lib/x86_64-linux-gnu  # archives packed on a merged-/usr system may hold either

# The archives are over one call's carry together: each unpacks when it
# comes, and stays while the machine is warm (call again within 30 s).
for a in x11 qt; do
  if [ -e .studio/$a.tar.xz ] && [ ! -e $root/.$a ]; then
    mkdir -p $root && tar -C $root -xJf .studio/$a.tar.xz && touch $root/.$a || { say "cannot unpack $a.tar.xz"; exit 1; }
    say "unpacked $a.tar.xz"
  fi
done
[ -e $root/.x11 ] || { say "x11.tar.xz not unpacked yet: carry .studio/x11.tar.xz and run again"; exit 0; }
install_gl_loaders
# Xvfb looks for these at the paths it was built with; the machine has none of them.
[ -e /usr/bin/xkbcomp ] || ln -s $root/usr/bin/xkbcomp /usr/bin/xkbcomp
[ -e /usr/share/X11/xkb ] || { mkdir -p /usr/share/X11 && ln -s $root/usr/share/X11/xkb /usr/share/X11/xkb; }
mkdir -p /usr/lib/x86_64-linux-gnu/dri
[ -e /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so ] || ln -s $lib/dri/swrast_dri.so /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so
# CMake packages check that every imported target's file exists: tools and
# plugins the studio does not use are there as empty files.
grep -rhoE '"\$\{_IMPORT_PREFIX\}/(lib|bin)/[^";]+"' $lib/cmake 2>/dev/null | tr -d '"' | sed 's|${_IMPORT_PREFIX}||' | sort -u |
  while read -r f; do [ -e "$root/usr$f" ] || { mkdir -p "$root/usr$(dirname "$f")"; : >"$root/usr$f"; }; done
# A library packed under its soname stands for its full version name too.
for f in $lib/libQt6*.so.6.*; do
  [ -s "$f" ] || { [ -s "${f%.so.6.*}.so.6" ] && ln -sf "$(basename "${f%.so.6.*}").so.6" "$f"; }
done
cat >$root/fonts.conf <<EOF
<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$root/usr/share/fonts</dir><cachedir>/tmp/fontconfig</cachedir></fontconfig>
EOF
LD_LIBRARY_PATH=$libs $root/usr/bin/Xvfb :7 -screen 0 1920x1080x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 50); do [ -e /tmp/.X11-unix/X7 ] && break; sleep 0.1; done
kill -0 $xvfb 2>/dev/null || { say "Xvfb did not start:"; tail -20 "$OUT/xvfb.log" | tee -a "$S"; exit 1; }
grep -E "GLX|glx" "$OUT/xvfb.log" | head -5 | tee -a "$S"
[ -e $root/.qt ] || { say "qt.tar.xz not unpacked yet: carry .studio/qt.tar.xz and run again"; kill $xvfb; exit 0; }

start=$(date +%s)
cmake -G Ninja -S . -B build-studio -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH=$root/usr -DOpenCV_DIR=$lib/cmake/opencv4 -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
  -DCMAKE_INCLUDE_PATH="$PWD/.deps/include;$root/usr/include" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
  >"$OUT/build.log" 2>&1 &&
  LD_LIBRARY_PATH=$libs ninja -C build-studio filterstudio test_gui_live_preview_gpu filterstudio-frame-bench fs_gl_interop_tests >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error|FAILED|not found|NOTFOUND" "$OUT/build.log" | head -40 | tee -a "$S"; exit 1; }
say "studio built in $(( $(date +%s) - start )) s"

build-studio/tests/gpu/fs_gl_interop_tests >"$OUT/interop_tests.txt" 2>&1
say "interop tests (EGL) exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/interop_tests.txt" | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure|error" "$OUT/interop_tests.txt" | head -10 | tee -a "$S"

python3 -c "import cv2; cv2.imwrite('/tmp/building-8k.png', cv2.resize(cv2.imread('resources/samples/building.jpg'), (7680, 4320), interpolation=cv2.INTER_CUBIC))"
export LD_LIBRARY_PATH=$libs QT_PLUGIN_PATH=$lib/qt6/plugins FONTCONFIG_FILE=$root/fonts.conf
export DISPLAY=:7 __GLX_VENDOR_LIBRARY_NAME=nvidia QT_QPA_PLATFORM=xcb QT_XCB_GL_INTEGRATION=xcb_glx HOME=/tmp/studio-home
timeout 300 build-studio/tests/gui/test_gui_live_preview_gpu -o "$OUT/window_test.txt,txt" -o -,txt >"$OUT/window_stdout.txt" 2>&1
say "window test exit $?"
grep -E "^(PASS|FAIL|SKIP|QWARN|QDEBUG|QINFO)|Totals|edits|frame|kernel median|status bar|GPU:|largest" "$OUT/window_test.txt" | head -40 | tee -a "$S"

build-studio/tools/framebench/filterstudio-frame-bench --csv "$OUT/frames.csv" >"$OUT/frames.txt" 2>&1
say "frame bench exit $?"
tail -12 "$OUT/frames.txt" | tee -a "$S"

# The window itself, for the eye: an 8K photograph through cuda/auto.
[ -e /tmp/building-8k.png ] && timeout 120 build-studio/ui/filterstudio /tmp/building-8k.png --mode cuda/auto --kernel sobel-mag:3 --view split \
    --screenshot "$OUT/window.png" >"$OUT/studio.txt" 2>&1
say "studio screenshot exit $?"
kill $xvfb
