#!/usr/bin/env bash
# The project's one test command: dependencies, build, then every test under CTest.
# GPU tests skip with a reason on machines without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
cmake --build build -j "$(nproc)"  # the tests
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j 2 --timeout 600
