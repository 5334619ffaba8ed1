#!/usr/bin/env bash
# memcheck and racecheck of the fft and tensor modes' tests on the final tree.
source scripts/device/common.sh
start=$(date +%s)
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
B=build-sm90
T=$B/tests/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
gunzip -c $B/gpu/libfs_cuda.so.gz >$B/gpu/libfs_cuda.so
mkdir -p $OUT/tests
F='FftMode.EveryKernelSideFrom3To63:FftMode.PipelinedPiecesMatchTheReference:TensorMode.EveryKernelSideFrom3To63:TensorMode.PipelinedPiecesMatchTheReference'
timeout 60 $T/fs_gpu_tests --gtest_filter="$F" >$OUT/tests/plain.txt 2>&1
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter="$F" >$OUT/tests/memcheck.txt 2>&1
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter="$F" >$OUT/tests/racecheck.txt 2>&1
for f in $OUT/tests/*.txt; do say "$(basename $f): exit-tail $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ')"; done
grep -hE "^\[  FAILED|Failure" $OUT/tests/*.txt | head -8 | tee -a $S
say "done at $(( $(date +%s) - start )) s"
cd $OUT && tar czf tests.tgz tests && rm -rf tests
