#!/usr/bin/env bash
# The rolling strip: identity store skipped (A), and BGR8 at 4 blocks per SM (AB), against 0c8c4d5; strip tests; fft under ncu.
source scripts/device/common.sh
start=$(date +%s)
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
B=build-sm90
T=$B/tests/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
for v in 0c8c4d5 A AB; do mkdir -p /tmp/ab/$v && gunzip -c build-ab/lib-$v.so.gz >/tmp/ab/$v/libfs_cuda.so; done
mkdir -p $B/gpu && cp /tmp/ab/AB/libfs_cuda.so $B/gpu/libfs_cuda.so
BENCH=$B/tools/bench/filterstudio-bench
mkdir -p $OUT/strip
fmt() { awk -F, 'NR>1 && $10 != "" {sub("8K-","",$1); printf "%s/%s=%s ", $1, $7, $10}' $1; }
for round in 1 2; do
  for v in 0c8c4d5 A AB; do
    LD_LIBRARY_PATH=/tmp/ab/$v:$LD_LIBRARY_PATH timeout 120 $BENCH --no-sweep --images gray8,gray,bgr8,rgba8 --masks 15,21,31 --only gaussian --modes separable --csv /tmp/b.csv >/tmp/b.txt 2>&1
    say "r$round $v 15-31: $(fmt /tmp/b.csv)"; cp /tmp/b.csv $OUT/strip/$v-wide-r$round.csv
    LD_LIBRARY_PATH=/tmp/ab/$v:$LD_LIBRARY_PATH timeout 120 $BENCH --no-sweep --images bgr8,rgba8 --masks 11 --only gaussian --modes separable --csv /tmp/b.csv >/tmp/b.txt 2>&1
    say "r$round $v 11: $(fmt /tmp/b.csv)"; cp /tmp/b.csv $OUT/strip/$v-11-r$round.csv
  done
done
say "strips done at $(( $(date +%s) - start )) s"
mkdir -p $OUT/tests
timeout 250 $T/fs_gpu_tests --gtest_filter='Gray/SeparableStrip.*:Colour8/SeparableStrip.*' >$OUT/tests/strip.txt 2>&1
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter='Colour8/SeparableStrip.*/u8_c3_11x11:Colour8/SeparableStrip.*/u8_c3_31x31' >$OUT/tests/memcheck.txt 2>&1
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter='Colour8/SeparableStrip.*/u8_c3_11x11' >$OUT/tests/racecheck.txt 2>&1
for f in $OUT/tests/*.txt; do say "$(basename $f): $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ')"; done
grep -hE "^\[  FAILED|Failure|samples off" $OUT/tests/*.txt | head -12 | tee -a $S
mkdir -p $OUT/ncu
timeout 90 ncu --clock-control none --section SpeedOfLight --section LaunchStats -k 'regex:^(?!.*holdKernel)' --launch-count 8 $BENCH --no-sweep --repeats 3 --images gray --modes fft --masks 21 --only dense >$OUT/ncu/gray-dense-21-fft.txt 2>&1
say "fft kernels: $(grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput' $OUT/ncu/gray-dense-21-fft.txt | awk '{$1=$1; print}' | cut -c1-70 | tr '\n' ';')"
say "done at $(( $(date +%s) - start )) s"
cd $OUT && for d in strip tests ncu; do tar czf $d.tgz $d && rm -rf $d; done
