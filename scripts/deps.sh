#!/usr/bin/env bash
# Installs FilterStudio's build and test dependencies from Debian 12's packages.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libopencv-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-base-dev-tools qt6-base-private-dev libqt6opengl6-dev libqcustomplot-dev qt6-qpa-plugins
  libgl-dev libegl-dev libopengl-dev
  ocl-icd-libopencl1 pocl-opencl-icd
  xvfb xauth pngquant
  pybind11-dev python3-dev python3-pybind11 python3-numpy python3-pytest python3-pandas
  python3-dask python3-distributed python3-nbformat python3-nbclient python3-nbconvert python3-ipykernel python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
