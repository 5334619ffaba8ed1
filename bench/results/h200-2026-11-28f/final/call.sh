#!/usr/bin/env bash
# Every GPU test binary on b7105d2, sanitizers on the quads and the strip, the GL interop test; Nsight Compute on the colour strips and the fft mode.
source scripts/device/common.sh
start=$(date +%s)
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
B=build-sm90
T=$B/tests/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
gunzip -c $B/gpu/libfs_cuda.so.gz >$B/gpu/libfs_cuda.so
mkdir -p $OUT/tests
pids=()
for i in $(seq 0 13); do
  GTEST_TOTAL_SHARDS=14 GTEST_SHARD_INDEX=$i FS_TEST_SEED=20261206 timeout 300 $T/fs_gpu_tests >$OUT/tests/fs_gpu_tests-$i.txt 2>&1 & pids+=($!)
done
FILTERSTUDIO_TUNE_CACHE=/tmp/launch-tuning.json FS_TEST_SEED=20261206 timeout 300 $T/fs_gpu_launch_tests >$OUT/tests/fs_gpu_launch_tests.txt 2>&1 & pids+=($!)
for bin in fs_gpu_engine_host_tests fs_gpu_batch_tests; do
  timeout 300 $T/$bin >$OUT/tests/$bin.txt 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait $p; done
say "tests done at $(( $(date +%s) - start )) s"
timeout 200 $T/fs_gpu_concurrency_tests >$OUT/tests/fs_gpu_concurrency_tests.txt 2>&1
(install_gl_loaders && timeout 100 $T/fs_gl_interop_tests) >$OUT/tests/fs_gl_interop_tests.txt 2>&1
Q='SeparableQuads.FrameAndQuadsAgreeBitForBit:RegistersQuads.FrameAndQuadsAgreeBitForBit:Colour8/SeparableStrip.*/u8_c4_11x11:Gray/SeparableStrip.*/u8_c1_15x15'
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter="$Q" >$OUT/tests/memcheck.txt 2>&1
FILTERSTUDIO_TUNE_CACHE=/tmp/lt2.json timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T/fs_gpu_launch_tests --gtest_filter='Cuda/LaunchMatrix.*/separable_u8_c1:Cuda/LaunchMatrix.*/separable_f32_c1' >$OUT/tests/memcheck-launch.txt 2>&1
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter="$Q" >$OUT/tests/racecheck.txt 2>&1
for f in $OUT/tests/*.txt; do say "$(basename $f): $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ')"; done
grep -hE "^\[  FAILED|Failure|samples off" $OUT/tests/*.txt | head -12 | tee -a $S
say "tests and sanitizers done at $(( $(date +%s) - start )) s"
BENCH=$B/tools/bench/filterstudio-bench
NCU="ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
mkdir -p $OUT/ncu
prof() {  # name kernel-regex image filter mask mode
  timeout 60 $NCU -k regex:$2 --launch-count 1 $BENCH --no-sweep --repeats 3 --images $3 --modes $6 --masks $5 --only $4 >$OUT/ncu/$1.txt 2>&1
  say "$1: $(grep -E '^ +(Duration|Issue Slots Busy|Registers Per Thread|Achieved Occupancy|Executed Instructions|DRAM Throughput|Warp Cycles Per Issued) ' $OUT/ncu/$1.txt | awk '{$1=$1; print}' | tr '\n' ';')"
}
prof bgr8-gaussian-11-separable stripKernel bgr8 gaussian 11 separable
prof rgba8-gaussian-11-separable stripKernel rgba8 gaussian 11 separable
prof gray8-gaussian-15-separable stripKernel gray8 gaussian 15 separable
timeout 90 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy -k 'regex:fft|Fft|vector|regular|radix' --launch-count 12 $BENCH --no-sweep --repeats 3 --images gray --modes fft --masks 21 --only dense >$OUT/ncu/gray-dense-21-fft.txt 2>&1
say "fft kernels: $(grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput' $OUT/ncu/gray-dense-21-fft.txt | awk '{$1=$1; print}' | cut -c1-70 | tr '\n' ';')"
say "done at $(( $(date +%s) - start )) s"
cd $OUT && tar czf tests.tgz tests && rm -rf tests && tar czf ncu.tgz ncu && rm -rf ncu
