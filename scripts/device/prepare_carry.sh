#!/usr/bin/env bash
# Fills the two git-ignored folders the device scripts carry to the GPU
# machine (it has nvcc/CMake/ninja but no GoogleTest, nlohmann-json, EGL/GL
# headers or GL loader libraries, and cannot download):
#   .deps/googletest   GoogleTest sources (Debian's libgtest-dev)
#   .deps/include      nlohmann/, EGL/, KHR/, GL/ headers
#   .gl/*.deb          the GL loader packages, unpacked there with dpkg -x
#   .deps/pybind11     pybind11's headers and CMake package, .deps/python
#                      pytest and what it imports, .deps/python-packaging
#                      packaging (python_on_gpu.sh uses each where the GPU
#                      machine's python3 lacks it)
# Run on the development machine after scripts/deps.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .deps .gl
mkdir -p .deps/include .gl
cp -r /usr/src/googletest .deps/googletest
for d in nlohmann EGL KHR GL; do cp -r "/usr/include/$d" .deps/include/; done
( cd .gl && apt-get download libegl1 libopengl0 libglvnd0 libgl1 libglx0 )
mkdir -p .deps/pybind11/include .deps/pybind11/lib/cmake .deps/python
cp -r /usr/include/pybind11 .deps/pybind11/include/
cp -r /usr/lib/cmake/pybind11 .deps/pybind11/lib/cmake/
for m in pytest _pytest pluggy iniconfig py attr attrs; do cp -r "/usr/lib/python3/dist-packages/$m" .deps/python/; done
mkdir -p .deps/python-packaging && cp -r /usr/lib/python3/dist-packages/packaging .deps/python-packaging/
du -sh .deps .gl
