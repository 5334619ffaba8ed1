#!/usr/bin/env bash
# Fills the two git-ignored folders the device scripts carry to the GPU
# machine (it has nvcc/CMake/ninja but no GoogleTest, nlohmann-json, EGL/GL
# headers or GL loader libraries, and cannot download):
#   .deps/googletest   GoogleTest sources (Debian's libgtest-dev)
#   .deps/include      nlohmann/, EGL/, KHR/, GL/ headers
#   .gl/*.deb          the GL loader packages, unpacked there with dpkg -x
# Run on the development machine after scripts/deps.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .deps .gl
mkdir -p .deps/include .gl
cp -r /usr/src/googletest .deps/googletest
for d in nlohmann EGL KHR GL; do cp -r "/usr/include/$d" .deps/include/; done
( cd .gl && apt-get download libegl1 libopengl0 libglvnd0 libgl1 libglx0 )
du -sh .deps .gl
