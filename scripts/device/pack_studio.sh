#!/usr/bin/env bash
# Packs what the GPU machine lacks to build the studio and show its window
# there (it has CUDA, CMake and ninja, but no Qt, OpenCV, QCustomPlot or
# display, and cannot download). Run on the development machine after
# scripts/deps.sh; the archive unpacks under /opt/fsroot on the GPU machine
# (scripts/device/window_on_gpu.sh does it):
#   .studio/qt.tar.xz   Qt 6 (headers, CMake packages, moc/uic/rcc, libraries,
#                       the eglfs platform plugin with the eglfs_pbuffer device
#                       integration built here from tools/eglfs_pbuffer),
#                       QCustomPlot, OpenCV core/imgproc/imgcodecs and the
#                       fonts Qt draws with
# The window is drawn by the GPU's own OpenGL into an EGL pbuffer: the
# machine has no X server with NVIDIA's GLX and no KMS device.
# Libraries are this Debian 12 machine's, found through their DT_NEEDED
# entries, minus glibc, libstdc++/libgcc and the GL loaders (carried in .gl).
# GDAL and GDCM, which OpenCV's image codecs link for geospatial and DICOM
# files (about 150 MB with their own dependencies), are replaced by small
# stand-ins that define the functions OpenCV calls and return zero: OpenCV
# registers GDAL's drivers when its codecs start; nothing else is called for
# the PNG and JPEG files the studio opens there.
# Usage: scripts/device/pack_studio.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
lib=/usr/lib/x86_64-linux-gnu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p .studio

# closure ROOT...: the ROOTs and every library they load, as absolute paths (ldconfig's view).
closure() {
  python3 - "$@" <<'EOF'
import subprocess, sys, re
cache = {}
for line in subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s+(\S+) \(libc6,x86-64[^)]*\) => (\S+)", line)
    if m: cache.setdefault(m.group(1), re.sub(r"^/lib/", "/usr/lib/", m.group(2)))
# Present on any Linux the GPU machine runs, or carried separately (.gl), or stubbed.
skip = re.compile(r"^(ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libstdc\+\+|libgcc_s|libGL\.|libGLX\.|"
                  r"libEGL\.|libOpenGL\.|libGLdispatch|libgdal\.|libgdcm)")
seen, todo = set(), list(sys.argv[1:])
while todo:
    path = todo.pop()
    if path in seen: continue
    seen.add(path)
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    for name in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out):
        if skip.match(name): continue
        if name not in cache: sys.exit(f"pack_studio: {name} (needed by {path}) not found")
        todo.append(cache[name])
print("\n".join(sorted(seen)))
EOF
}

# put PATH...: copies each path (files dereferenced, directories whole) into the stage.
put() {
  for p in "$@"; do
    mkdir -p "$stage$(dirname "$p")"
    cp -rL "$p" "$stage$p"
  done
}

# archive NAME: the stage as .studio/NAME.tar.xz, then an empty stage.
archive() {
  tar -C "$stage" -cf - . | xz -6 -T2 >".studio/$1.tar.xz"
  rm -rf "${stage:?}"/*
  du -h ".studio/$1.tar.xz"
}

eglfs_build=$stage.eglfs
trap 'rm -rf "$stage" "$eglfs_build"' EXIT
cmake -G Ninja -S tools/eglfs_pbuffer -B "$eglfs_build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$eglfs_build" >/dev/null
eglfs_plugin=$eglfs_build/plugins/egldeviceintegrations/libeglfs_pbuffer.so
qtlibs=$(ls $lib/libQt6{Core,Gui,Widgets,OpenGL,OpenGLWidgets,Concurrent,Test,DBus,EglFSDeviceIntegration,PrintSupport}.so.6)
plugins=$(ls $lib/qt6/plugins/platforms/libqeglfs.so)
cvlibs=$(ls $lib/libopencv_{core,imgproc,imgcodecs}.so.406)
put $(closure $qtlibs $plugins $eglfs_plugin $cvlibs $lib/libQCustomPlotQt6.so.2.1 /usr/lib/qt6/libexec/{moc,rcc,uic})
put $plugins /usr/lib/qt6/libexec/{moc,rcc,uic}
mkdir -p "$stage$lib/qt6/plugins/egldeviceintegrations"
cp "$eglfs_plugin" "$stage$lib/qt6/plugins/egldeviceintegrations/"
put /usr/include/qcustomplot.h /usr/include/opencv4/opencv2/{core,imgproc,imgcodecs} \
    /usr/include/opencv4/opencv2/{core,imgproc,imgcodecs,opencv_modules}.hpp
for m in Core Gui Widgets OpenGL OpenGLWidgets Concurrent Test DBus PrintSupport; do
  put /usr/include/x86_64-linux-gnu/qt6/Qt$m
done
put $lib/qt6/mkspecs/linux-g++ $lib/qt6/mkspecs/common $lib/cmake/opencv4 /usr/share/fonts/truetype/dejavu /etc/fonts
for d in $lib/cmake/Qt6*; do put "$d"; done
# The linker's names for the libraries the build links directly, and the
# full version names the CMake packages use.
for l in $qtlibs $cvlibs $lib/libQCustomPlotQt6.so.2.1; do
  ln -sf "$(basename "$l")" "$stage$lib/$(basename "$l" | sed 's/\.so\..*/.so/')"
  ln -sf "$(basename "$l")" "$stage$lib/$(basename "$(readlink -f "$l")")"
done
# The CMake packages check that every imported target's file exists: the
# Qt plugins and OpenCV modules the studio does not use are empty files only.
grep -rhoE '"\$\{_IMPORT_PREFIX\}/(lib|bin)/[^";]+"' "$stage$lib/cmake" | tr -d '"' | sed 's/${_IMPORT_PREFIX}//' | sort -u |
  while read -r f; do [ -e "$stage/usr$f" ] || { mkdir -p "$stage/usr$(dirname "$f")"; : >"$stage/usr$f"; }; done
for m in core imgproc imgcodecs; do ln -sf libopencv_$m.so.406 "$stage$lib/libopencv_$m.so.4.6.0"; done
# Stand-ins for GDAL and GDCM: every function the packed libraries take from them.
# (nm fails on the empty placeholders: that is expected.)
find "$stage" -name '*.so*' -type f -size +0 -exec nm -D --undefined-only {} + 2>/dev/null | awk '{print $2}' | sort -u \
  >"$stage/undefined.txt" || true
for real in libgdal.so.32 libgdcmMSFF.so.3.0 libgdcmDSED.so.3.0; do
  src=$stage/stub.c
  : >"$src"
  comm -12 "$stage/undefined.txt" <(nm -D --defined-only "$lib/$real" | awk '$2 ~ /[TW]/ {print $3}' | sort -u) |
    awk '{printf "long s%d(void) __asm__(\"%s\");\nlong s%d(void) { return 0; }\n", NR, $1, NR}' >>"$src"
  gcc -shared -fPIC -o "$stage$lib/$real" -Wl,-soname,"$real" "$src"
  rm "$src"
done
rm "$stage/undefined.txt"
archive qt
