#!/usr/bin/env bash
# The papers' benchmark presets on the GPU machine (docs/teaching.md): builds
# filterstudio-cli with Qt and OpenCV there (carried in .studio/qt.tar.xz by
# scripts/device/pack_studio.sh), points OpenCV's OpenCL at the GPU, and runs
# course-figure8, thesis-widths, thesis-batch and course-table1 (the
# sequential loop at 2800² and 5600² only), CSVs and plots into $OUT. The
# plots draw through Qt's eglfs platform into a pbuffer on the GPU's EGL
# device (the carried Qt has no offscreen plugin).
#   run: bash scripts/device/presets_on_gpu.sh   carry: [".deps", ".gl", ".studio/qt.tar.xz"]
# Takes about 5 minutes on an H100 host (16 cores).
set -u -o pipefail
source "$(dirname "$0")/common.sh"
T0=$(date +%s)
unpack_carried_qt
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
# OpenCL on the GPU itself (only PoCL is registered there), for OpenCV's T-API contenders.
mkdir -p /etc/OpenCL/vendors && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export OPENCV_OPENCL_DEVICE=":GPU:0"
cmake -G Ninja -S . -B build-studio -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH=$root/usr -DOpenCV_DIR=$lib/cmake/opencv4 -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
  -DCMAKE_INCLUDE_PATH="$PWD/.deps/include;$root/usr/include" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
  >/tmp/build.log 2>&1 && LD_LIBRARY_PATH=$libs ninja -C build-studio filterstudio-cli >>/tmp/build.log 2>&1 ||
  { grep -E "error|Error|FAILED|not found|NOTFOUND" /tmp/build.log | head -40 | tee -a "$S"; exit 1; }
say "cli built at $(( $(date +%s) - T0 )) s"
# The plots draw through Qt: eglfs into a pbuffer on the GPU's EGL device (the packed Qt has no offscreen plugin).
export LD_LIBRARY_PATH=$libs QT_PLUGIN_PATH=$lib/qt6/plugins FONTCONFIG_FILE=$root/fonts.conf HOME=/tmp/cli-home
export QT_QPA_PLATFORM=eglfs QT_QPA_EGLFS_INTEGRATION=eglfs_pbuffer QT_QPA_EGLFS_DISABLE_INPUT=1
CLI=build-studio/tools/cli/filterstudio-cli
mkdir -p /tmp/plots
run() {  # name timeout args...
  local name=$1 limit=$2; shift 2
  local left=$(( 585 - ($(date +%s) - T0) ))
  [ $left -lt 20 ] && { say "$name: not run, no time left"; return; }
  [ $limit -gt $left ] && limit=$left
  timeout $limit stdbuf -oL $CLI bench "$@" --csv "$OUT/$name.csv" --plots /tmp/plots/$name >/tmp/$name.txt 2>&1
  say "$name exit $? at $(( $(date +%s) - T0 )) s"; tail -3 /tmp/$name.txt | tee -a "$S"
}
run course-figure8 60 --preset course-figure8
run thesis-widths 150 --preset thesis-widths
run thesis-batch 90 --preset thesis-batch
run course-table1-large 200 --preset course-table1 --sizes 11200,22400 --exclude sequential
run course-table1-small 300 --preset course-table1 --sizes 2800,5600
cd /tmp && tar czf "$OUT/plots.tgz" plots *.txt 2>/dev/null
