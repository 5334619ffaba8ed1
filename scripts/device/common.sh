# Sourced by the device scripts (run from the repository root on the GPU
# machine): $OUT and its summary.txt, say(), the compilers on PATH, the
# carried headers (.deps), the compiled-in test data path, and the Qt-less,
# OpenCV-less configure + build. Logs go to $OUT: summary.txt first.
set -u -o pipefail
OUT=${OUT:-$PWD/out-device}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
export CPATH=$PWD/.deps/include PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }  # test data paths are compiled in

# The GL loaders carried in .gl (for the CUDA-GL interop test through EGL).
install_gl_loaders() {
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  local lib=/usr/lib/x86_64-linux-gnu
  ln -sf libEGL.so.1 $lib/libEGL.so; ln -sf libOpenGL.so.0 $lib/libOpenGL.so; ln -sf libGLX.so.0 $lib/libGLX.so
  ldconfig
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
}

# build_tree SOURCE DIR LOG [ninja arguments...]: the Qt-less, OpenCV-less
# Release build of the tree at SOURCE, its output in LOG; fails as ninja does.
# DEVICE_CMAKE_ARGS adds cmake arguments, e.g. -DCMAKE_CUDA_ARCHITECTURES=90
# to build for this GPU alone.
build_tree() {
  local src=$1 dir=$2 log=$3
  shift 3
  # shellcheck disable=SC2086  # DEVICE_CMAKE_ARGS holds several arguments
  cmake -G Ninja -S "$src" -B "$dir" -DFS_WITH_QT=OFF -DFS_WITH_OPENCV=OFF -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
    -DCMAKE_INCLUDE_PATH="$PWD/.deps/include" -DCMAKE_BUILD_TYPE=Release -DFS_CUDA_PTXAS_VERBOSE=ON -DFS_CUDA_LINEINFO=ON \
    ${DEVICE_CMAKE_ARGS:-} >"$log" 2>&1 && ninja -C "$dir" "$@" >>"$log" 2>&1
}

# configure_and_build DIR [ninja targets...]: exits with the first errors in
# the summary; $OUT/build.log stays for the caller to read, then remove.
configure_and_build() {
  local dir=$1
  shift
  build_tree . "$dir" "$OUT/build.log" "$@" ||
    { grep -E "error|FAILED|CMake Error" "$OUT/build.log" | head -30 | tee -a "$S"; exit 1; }
}

# The kernels that spill (ptxas -v in build.log) into $OUT/spills.txt; prints their count.
count_spills() {
  grep -E "spill stores|Used [0-9]+ registers" "$OUT/build.log" | grep -B1 -E "[1-9][0-9]* bytes spill stores" |
    head -20 >"$OUT/spills.txt"
  grep -c 'spill stores' "$OUT/spills.txt"
}

# gpu_ctest DIR [ctest arguments...]: every GPU test (12 at once), the verdict and failures in the summary.
gpu_ctest() {
  local start dir=$1
  shift
  start=$(date +%s)
  ctest --test-dir "$dir" -L gpu -j 12 --output-on-failure --timeout 400 "$@" >"$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed" "$OUT/ctest.log" | tee -a "$S"
  grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Not Run)" "$OUT/ctest.log" | head -30 | tee -a "$S"
  grep -E "\[ interop|images/s|FS_TEST_SEED" "$OUT/ctest.log" | head -12 | tee -a "$S"
  say "ctest took $(( $(date +%s) - start )) s"
}

# bench_targets DIR: the 8K table, targets and pipeline sweep; with TUNE=1 the
# autotuner's table too.
bench_targets() {
  "$1"/tools/bench/filterstudio-bench --no-sweep --quick --csv "$OUT/bench.csv" >"$OUT/bench.txt" 2>&1
  say "bench exit $?"; sed -n '/^TARGETS/,$p' "$OUT/bench.txt" | tee -a "$S"
  grep -E "pieces sweep" "$OUT/bench.txt" | tee -a "$S"
  if [ "${TUNE:-0}" = 1 ]; then
    timeout 240 "$1"/tools/bench/filterstudio-bench --tune --repeats 20 --tune-csv "$OUT/tune.csv" >/tmp/tune.txt 2>&1
    say "tune bench exit $?"; grep -E "^8K" /tmp/tune.txt | tee -a "$S"
  fi
}

# unpack_carried_qt: the Qt 6, OpenCV and QCustomPlot runtime and headers
# carried in .studio/qt.tar.xz (scripts/device/pack_studio.sh) under $root,
# with the GL loaders; sets root, lib and libs for the caller's cmake and
# LD_LIBRARY_PATH, and writes $root/fonts.conf.
unpack_carried_qt() {
  root=/opt/fsroot
  lib=$root/usr/lib/x86_64-linux-gnu
  libs=$lib:$root/lib/x86_64-linux-gnu  # archives packed on a merged-/usr system may hold either

  if [ ! -e $root/.qt ]; then
    mkdir -p $root && tar -C $root -xJf .studio/qt.tar.xz && touch $root/.qt || { say "cannot unpack qt.tar.xz"; exit 1; }
  fi
  install_gl_loaders
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
}
