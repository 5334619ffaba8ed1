#!/usr/bin/env bash
# One device call that checks everything GPU-side: the Debian GL loaders (carry
# .gl and .deps), a Qt-less/OpenCV-less build with CUDA-GL interop, every GPU
# test (modes, launch configurations, pipeline, faults, NaN/Inf, batch, EGL
# interop), memcheck on the fault and launch tests, the 8K targets, the
# autotuner's table, cuDNN/CuPy and OpenCL peers (run while the build keeps
# the GPU idle); BATCH=1 adds the batch benchmark, TUNE=0 leaves out the
# tuning table, TARGETS="a b" builds only those targets.
# Logs go to $OUT: summary.txt first.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
install_gl_loaders

say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
B=build-verify
# The peers need only the GPU, which the build leaves idle: run them meanwhile
# (CUDA-event timings; peers.txt's "ours" is an earlier run's, the side-by-side
# table in the summary pairs them with this run's bench.csv below).
( timeout 300 python3 bench/peers/peers.py bench/peers/quick-cases.csv --quick --out /tmp/peers.csv \
    >"$OUT/peers.txt" 2>&1; echo "peers exit $?" >>"$OUT/peers.txt"
  timeout 200 python3 bench/peers/opencl_peers.py --images gray --sizes 3,15,31 --out /tmp/opencl_peers.csv >"$OUT/opencl.txt" 2>&1
  echo "opencl peers exit $?" >>"$OUT/opencl.txt" ) &
PEERS=$!
start=$(date +%s)
configure_and_build $B ${TARGETS:-}
rm -f "$OUT/build.log"  # at most 8 files come back
say "built in $(( $(date +%s) - start )) s; interop test built: $( [ -x $B/tests/gpu/fs_gl_interop_tests ] && echo yes || echo NO)"

wait $PEERS  # the tests share the GPU; the peers' timings must not
tail -1 "$OUT/peers.txt" | tee -a "$S"
[ "${CTEST:-1}" = 1 ] && gpu_ctest $B
[ "${BATCH:-0}" = 1 ] && { timeout 200 $B/tools/batchbench/filterstudio-batch-bench >>"$S" 2>&1; say "batch bench exit $?"; }
TUNE=${TUNE:-1} bench_targets $B
say "== side by side: this run's best mode / peers measured during the build (ours/peer < 1: we are faster)"
python3 bench/peers/peers.py "$OUT/bench.csv" --compare /tmp/peers.csv --out "$OUT/peers.csv" 2>&1 | tee -a "$S"
# Sanitizers last: if the call runs out of time, the numbers above are kept.
if [ "${SANITIZE:-1}" = 1 ]; then
  for t in fs_gpu_tests fs_gpu_launch_tests; do
    filter='*'
    [ $t = fs_gpu_tests ] && filter=${MEMCHECK_GPU_TESTS:-'*Fault*:*NanInf*:*Allocation*'}
    [ "$filter" = none ] && continue
    [ $t = fs_gpu_launch_tests ] && filter='*shared_f32_c3*:*registers_u8_c4*:*separable_u16_c1*:*global_u8_c1*:*Refusals*:*LaunchReport*'
    timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/gpu/$t --gtest_filter="$filter" >>"$OUT/sanitizer.log" 2>&1
    say "memcheck $t ($filter): exit $? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"
  done

  timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/gpu/fs_gpu_launch_tests \
    --gtest_filter="${RACECHECK:-*separable_f32_c1*:*shared_u8_c1*}" >>"$OUT/sanitizer.log" 2>&1
  say "racecheck separable/shared slice: exit $? $(grep -E 'RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)"
fi

tail -16 "$OUT/opencl.txt" | tee -a "$S"
