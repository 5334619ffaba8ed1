#!/usr/bin/env bash
# Separable quads at 11x11..17x17: shapes against the strip (old library); tests.
source scripts/device/common.sh
start=$(date +%s)
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
B=build-sm90
T=$B/tests/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
gunzip -c $B/gpu/libfs_cuda.so.gz >$B/gpu/libfs_cuda.so
mkdir -p /tmp/oldlib && gunzip -c build-old/libfs_cuda.so.gz >/tmp/oldlib/libfs_cuda.so
BENCH=$B/tools/bench/filterstudio-bench
mkdir -p $OUT/sq
fmt() { awk -F, 'NR>1 && $10 != "" {sub("8K-","",$1); printf "%s/%s=%s ", $1, $7, $10}' $1; }
for round in 1 2; do
  LD_LIBRARY_PATH=/tmp/oldlib:$LD_LIBRARY_PATH timeout 90 $BENCH --no-sweep --images gray8,gray,bgr8,rgba8 --masks 11,13,15,17 --only gaussian --modes separable --csv /tmp/b.csv >/tmp/b.txt 2>&1
  say "r$round strip: $(fmt /tmp/b.csv)"; cp /tmp/b.csv $OUT/sq/strip-r$round.csv
  for pt in 4x2 2x4 4x4 2x8 4x8 8x4 8x8 4x16; do
    timeout 90 $BENCH --no-sweep --images gray8,gray,bgr8,rgba8 --masks 11,13,15,17 --only gaussian --modes separable --per-thread $pt --csv /tmp/b.csv >/tmp/b.txt 2>&1
    say "r$round $pt: $(fmt /tmp/b.csv)"; cp /tmp/b.csv $OUT/sq/$pt-r$round.csv
  done
done
say "shapes done at $(( $(date +%s) - start )) s"
mkdir -p $OUT/tests
timeout 200 $T/fs_gpu_tests --gtest_filter='SeparableQuads.*' >$OUT/tests/quads.txt 2>&1
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/fs_gpu_tests --gtest_filter='SeparableQuads.FrameAndQuadsAgreeBitForBit' >$OUT/tests/memcheck.txt 2>&1
for f in $OUT/tests/*.txt; do say "$(basename $f): $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ')"; done
grep -hE "^\[  FAILED|Failure|samples off" $OUT/tests/*.txt | head -12 | tee -a $S
say "done at $(( $(date +%s) - start )) s"
cd $OUT && tar czf sq.tgz sq && rm -rf sq && tar czf tests.tgz tests && rm -rf tests
