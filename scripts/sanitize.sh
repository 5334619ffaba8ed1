#!/usr/bin/env bash
# Hardening job: core, CPU backends, image I/O, CLI and their tests built with
# clang + ASan + UBSan and run (leaks fail the run), then each libFuzzer target
# (kernel files, image files, pipeline files, TIFF headers against the pixel limit)
# for FUZZ_SECONDS (default 60) on its seed corpus. Crash inputs are copied to
# tests/fuzz/regressions/ so they become regression tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="${missing:-} $p"
done
if [ -n "${missing:-}" ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
cmake -G Ninja -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DFS_WITH_QT=OFF -DFS_WITH_CUDA=OFF -DFS_SANITIZE=ON -DFS_BUILD_FUZZERS=ON
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan-suppressions.txt
# The OpenCL tests are left out: PoCL's JIT runtime is not ours and reports its own leaks.
ctest --test-dir build-asan --output-on-failure -j 2 --timeout 900 -LE opencl

# FUZZ_SEED makes a run repeatable: with it each target runs a fixed number of
# inputs (FUZZ_RUNS_KERNEL / _IMAGE / _PIPELINE / _TIFF, about a minute each here), so CI
# replays exactly what was run before landing; without it, FUZZ_SECONDS each.
seconds=${FUZZ_SECONDS:-60}
for target in kernel_json:kernel:${FUZZ_RUNS_KERNEL:-800000} image_load:image:${FUZZ_RUNS_IMAGE:-150000} \
              pipeline_json:pipeline:${FUZZ_RUNS_PIPELINE:-500000} tiff_header:tiff:${FUZZ_RUNS_TIFF:-100000}; do
  IFS=: read -r short kind runs <<<"$target"
  name=fuzz_$short
  work=$(mktemp -d)
  cp tests/fuzz/corpus/$kind/* "$work"/
  if [ -n "${FUZZ_SEED:-}" ]; then
    budget=(-seed="$FUZZ_SEED" -runs="$runs")
    echo "fuzz: $name, seed $FUZZ_SEED, $runs inputs"
  else
    budget=(-max_total_time="$seconds")
    echo "fuzz: $name for ${seconds}s"
  fi
  # The kernel parser gets 1 s an input: parsing is linear, so a slow input is a bug.
  limit=(); [ "$short" = kernel_json ] && limit=(-timeout=1)
  if ! (cd build-asan && ./tests/fuzz/$name "${budget[@]}" "${limit[@]}" -max_len=65536 -rss_limit_mb=4096 \
        -artifact_prefix="$work/crash-" "$work" 2>&1 | tail -n 5); then
    echo "fuzz: $name found a crash; inputs saved under tests/fuzz/regressions/$kind/"
    cp "$work"/crash-* tests/fuzz/regressions/$kind/ 2>/dev/null || true
    exit 1
  fi
done
echo "fuzz: no crashes"
