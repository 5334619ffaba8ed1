#!/usr/bin/env bash
# Configures ./build and builds every program this machine can build: the
# studio, the CLI, the benchmarks and the Python module. scripts/test.sh then
# builds the tests too. CUDA is used when nvcc is found (also in
# /usr/local/cuda/bin); otherwise a CPU-only build.
set -euo pipefail
cd "$(dirname "$0")/.."
args=(-G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release)
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
# FS_CUDA_ARCHITECTURES: another CMAKE_CUDA_ARCHITECTURES than the default list (CI sets one).
if [ -n "${FS_CUDA_ARCHITECTURES:-}" ]; then
  args+=("-DCMAKE_CUDA_ARCHITECTURES=$FS_CUDA_ARCHITECTURES")
fi
cmake "${args[@]}" "$@"
cmake --build build -j "$(nproc)" --target fs_programs
