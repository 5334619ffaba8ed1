#!/usr/bin/env bash
# Builds the Debian packages from ./build (BUILD_DIR=... for another build
# folder), installs them with apt, and checks what they installed: the CLI's
# version, a filter on a bundled sample, the GUI staying up offscreen for a
# few seconds, and the Python module imported by Debian's python3 from the
# installed package, filtering a small array. Removes the packages afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
[ -d "$BUILD_DIR" ] || bash scripts/build.sh
(cd "$BUILD_DIR" && cpack -G DEB >/dev/null)
deb=$(ls -t "$BUILD_DIR"/filterstudio_*.deb | head -n 1)
debs=("./$deb")
packages=(filterstudio)
echo "package: $deb"
dpkg-deb --field "$deb" Depends
# The build has the Python module: its package must be there too.
if compgen -G "$BUILD_DIR/python/filterstudio/_core*.so" >/dev/null; then
  pydeb=$(ls -t "$BUILD_DIR"/python3-filterstudio_*.deb | head -n 1)
  echo "package: $pydeb"
  dpkg-deb --field "$pydeb" Depends Recommends
  debs+=("./$pydeb")
  packages+=(python3-filterstudio)
fi
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${debs[@]}" >/dev/null
remove_packages() { DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -qq "${packages[@]}" >/dev/null; }
trap remove_packages EXIT

/usr/bin/filterstudio-cli --version
out=$(mktemp -d)
/usr/bin/filterstudio-cli apply -i /usr/share/filterstudio/samples/fruits.jpg -o "$out/fruits-sobel.png" -k sobel-mag
test -s "$out/fruits-sobel.png"
# The CUDA engine and video support are opened with dlopen from the private library folder:
# found, the engine lists cuda (with or without a device), and a file that is no video is refused as such.
/usr/bin/filterstudio-cli modes | grep -E '^cuda ' | tee "$out/cuda.txt"
! grep -q "could not be loaded" "$out/cuda.txt"
if [ -e /usr/lib/filterstudio/libfs_videoio.so ]; then
  echo "not a video" >"$out/notes.mkv"
  set +e
  /usr/bin/filterstudio-cli video -i "$out/notes.mkv" -k box:3 -o "$out/out.mkv" 2>"$out/video.txt"
  status=$?
  set -e
  cat "$out/video.txt"
  [ "$status" -eq 3 ] && grep -q "no video stream" "$out/video.txt"
fi
/usr/bin/filterstudio --version
# The GUI must still be running when timeout stops it (exit 124); anything else is a crash or an early exit.
set +e
QT_QPA_PLATFORM=offscreen timeout 5 /usr/bin/filterstudio /usr/share/filterstudio/samples/fruits.jpg
status=$?
set -e
if [ "$status" -ne 124 ]; then
  echo "package: the installed GUI exited with status $status within 5 s" >&2
  exit 1
fi
test -f /usr/share/applications/filterstudio.desktop
test -f /usr/share/icons/hicolor/scalable/apps/filterstudio.svg

if [[ " ${packages[*]} " == *" python3-filterstudio "* ]]; then
  # -I and a folder outside the tree: only the installed package can be imported.
  (cd "$out" && /usr/bin/python3 -I - <<'PY'
import numpy as np
import filterstudio as fs
import filterstudio.dask

assert fs.__file__ == "/usr/lib/python3/dist-packages/filterstudio/__init__.py", fs.__file__
laplacian = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=np.float32)
image = (np.arange(6 * 9, dtype=np.float32).reshape(6, 9) ** 2) % 97
out, timing = fs.filter(image, laplacian, border="replicate")
padded = np.pad(image, 1, mode="edge")
expected = padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:] - 4 * image
assert out.dtype == np.float32 and np.array_equal(out, expected), (out, expected)
# The private libraries come from the package's libdir, through the module's RUNPATH.
maps = open("/proc/self/maps").read()
assert "/usr/lib/filterstudio/libfs_core.so" in maps, "libfs_core not loaded from /usr/lib/filterstudio"
print(f"package: python3 imported {fs.__file__}, filtered 6x9 on {timing.backend}/{timing.mode}: OK")
PY
  )
fi
trap - EXIT
remove_packages
# Removal takes the byte-code python3 wrote (as root) with it.
if [ -e /usr/lib/python3/dist-packages/filterstudio ]; then
  echo "package: removing python3-filterstudio left /usr/lib/python3/dist-packages/filterstudio behind" >&2
  exit 1
fi
echo "package: installed, ran and removed OK"
