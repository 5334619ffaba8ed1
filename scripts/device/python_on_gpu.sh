#!/usr/bin/env bash
# The filterstudio Python module on the GPU machine, with its own python3
# (torch, CuPy, NumPy): builds the CLI and the module there without Qt
# (OpenCV from .studio/qt.tar.xz; pybind11 and pytest from .deps where that
# python3 lacks them), then runs tests/python: the CUDA modes against the
# CPU reference and the CLI, and CuPy arrays and torch tensors
# (test_gpu_arrays.py). Dask and notebook tests skip where that python3 has
# no dask or nbclient.
# Carried (see the device tool's `carry`): .deps and .gl from
# scripts/device/prepare_carry.sh, .studio/qt.tar.xz from scripts/device/pack_studio.sh.
#   run: bash scripts/device/python_on_gpu.sh   carry: [".deps", ".gl", ".studio/qt.tar.xz"]
# Results: $OUT/summary.txt, then pytest.txt (every test with its verdict and
# each skip's reason) and pytest.xml.
set -u -o pipefail
source "$(dirname "$0")/common.sh"
unpack_carried_qt

py=$(command -v python3)
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $py: $($py --version 2>&1)"
$py - <<'EOF' 2>&1 | tee -a "$S"
import importlib
for name in ("numpy", "cupy", "torch", "cv2", "pybind11", "pytest", "dask", "distributed", "nbclient"):
    try:
        print(f"  {name} {getattr(importlib.import_module(name), '__version__', '?')}")
    except Exception as e:
        print(f"  {name}: not importable ({type(e).__name__})")
EOF
include=$($py -c "import sysconfig; print(sysconfig.get_paths()['include'])")
[ -e "$include/Python.h" ] || { say "no Python.h in $include: this python3 has no headers to build the module against"; exit 1; }
# pybind11: this python3's own package; else the headers torch ships, with the
# carried CMake package; else the carried Debian 2.10 headers. NumPy 2 needs
# pybind11 2.12 or later (its dtype layout changed).
pybind11_dir=$($py -c "import pybind11; print(pybind11.get_cmake_dir())" 2>/dev/null)
if [ -z "$pybind11_dir" ]; then
  torch_include=$($py -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))" 2>/dev/null)
  pybind11_dir=$PWD/.deps/pybind11/lib/cmake/pybind11
  if [ -n "$torch_include" ] && [ -e "$torch_include/pybind11/pybind11.h" ]; then
    rm -rf /tmp/pybind11 && mkdir -p /tmp/pybind11/include /tmp/pybind11/lib/cmake
    cp -r .deps/pybind11/lib/cmake/pybind11 /tmp/pybind11/lib/cmake/
    ln -s "$torch_include/pybind11" /tmp/pybind11/include/pybind11
    pybind11_dir=/tmp/pybind11/lib/cmake/pybind11
  fi
fi
header=$(readlink -f "$pybind11_dir/../../../include/pybind11/detail/common.h")
[ -e "$header" ] || header=$($py -c "import pybind11; print(pybind11.get_include())" 2>/dev/null)/pybind11/detail/common.h
pybind11_version=$(awk '/define PYBIND11_VERSION_(MAJOR|MINOR|PATCH) /{v = v (v ? "." : "") $3} END {print v}' "$header")
say "pybind11 $pybind11_version (headers $header)"
numpy_major=$($py -c "import numpy; print(numpy.__version__.split('.')[0])")
if [ "$numpy_major" -ge 2 ] && [ "$(printf '%s\n' "$pybind11_version" 2.12 | sort -V | head -1)" != 2.12 ]; then
  say "NumPy $numpy_major needs pybind11 2.12 or later; $py has none: install one there or carry its headers"; exit 1
fi

# The carried OpenCV and what it loads are found through the programs' and
# the module's RPATH (not LD_LIBRARY_PATH, which torch and CuPy would see too).
rpath="-Wl,--disable-new-dtags,-rpath,$libs,-rpath-link,$libs"
B=build-python-gpu
start=$(date +%s)
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DFS_WITH_QT=OFF \
  -DCMAKE_PREFIX_PATH=$root/usr -DOpenCV_DIR=$lib/cmake/opencv4 -DPython3_EXECUTABLE="$py" -Dpybind11_DIR="$pybind11_dir" \
  -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" -DCMAKE_INCLUDE_PATH="$PWD/.deps/include;$root/usr/include" \
  -DCMAKE_EXE_LINKER_FLAGS="$rpath" -DCMAKE_SHARED_LINKER_FLAGS="$rpath" -DCMAKE_MODULE_LINKER_FLAGS="$rpath" \
  >"$OUT/build.log" 2>&1 &&
  ninja -C $B fs_python filterstudio-cli >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error|FAILED|not found|NOTFOUND|Python" "$OUT/build.log" | head -40 | tee -a "$S"; exit 1; }
grep -E "FilterStudio: (Python|CUDA)" "$OUT/build.log" | tee -a "$S"
say "module and CLI built in $(( $(date +%s) - start )) s"
rm -f "$OUT/build.log"

# pytest (and packaging) from .deps only where this python3 has none of its own.
extra=
$py -c "import pytest" 2>/dev/null || extra=$PWD/.deps/python
$py -c "import packaging" 2>/dev/null || extra=${extra:+$extra:}$PWD/.deps/python-packaging
start=$(date +%s)
(cd tests/python &&
  PYTHONPATH=$PWD/../../$B/python${extra:+:$extra} FS_TEST_DATA_DIR=$PWD/../data PYTHONDONTWRITEBYTECODE=1 \
  FS_CLI=$PWD/../../$B/tools/cli/filterstudio-cli \
  timeout 380 "$py" -m pytest -v -rs -p no:cacheprovider --junitxml="$OUT/pytest.xml" \
    test_gpu_arrays.py test_module.py test_dask.py test_notebook.py >"$OUT/pytest.txt" 2>&1)
say "pytest exit $? in $(( $(date +%s) - start )) s: $(tail -1 "$OUT/pytest.txt")"
grep -E "^(FAILED|ERROR)|^SKIPPED|test_gpu_arrays.py::" "$OUT/pytest.txt" | head -40 | tee -a "$S"
