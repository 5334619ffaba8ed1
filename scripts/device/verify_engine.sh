#!/usr/bin/env bash
# On the GPU machine (device tool `run`, carry .deps and .gl; prepare them with
# scripts/device/prepare_carry.sh): builds everything Qt-less, runs every GPU
# test, the engine's host tests, and compute-sanitizer memcheck + racecheck
# on the engine's concurrency test (shortened with FS_CONCURRENCY_RUNS).
# Logs in $OUT: summary.txt, ctest.log, engine_host.log, sanitizer.log.
cd "$(dirname "$0")/../.."
. scripts/device/common.sh
install_gl_loaders >/dev/null 2>&1
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
start=$(date +%s)
configure_and_build build-device
say "built in $(( $(date +%s) - start )) s"
rm -f "$OUT/build.log"
gpu_ctest build-device
grep -E "EngineConcurrency" "$OUT/ctest.log" | grep -E "Passed|Failed|Skipped" | tee -a "$S"
build-device/tests/gpu/fs_gpu_engine_host_tests >"$OUT/engine_host.log" 2>&1
say "engine host tests exit $?: $(grep -E '^\[  (PASSED|FAILED)' "$OUT/engine_host.log" | head -2 | tr '\n' ' ')"
: >"$OUT/sanitizer.log"
for tool in memcheck racecheck; do
  FS_CONCURRENCY_RUNS=6 timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 \
    build-device/tests/gpu/fs_gpu_concurrency_tests >>"$OUT/sanitizer.log" 2>&1
  say "$tool on the concurrency test: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)"
done
