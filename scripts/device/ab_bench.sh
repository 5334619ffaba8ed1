#!/usr/bin/env bash
# A/B kernel timing in one device call. Builds the working tree's benchmark
# (plus $TARGETS), then one engine library per folder in $AB_VARIANTS: each folder
# holds object files at their build-tree paths, compiled on the development
# machine by scripts/device/ab_object.sh, which are linked in its place (a
# link takes seconds; recompiling one large .cu file here takes minutes).
# Every benchmark runs $ROUNDS times (default 2; no round starts after
# $LAST_ROUND_BY seconds), interleaved, with $BENCH_ARGS, so clock drift hits
# all alike. $GTEST_FILTER, if set, first runs that slice of fs_gpu_tests
# (build it: TARGETS=fs_gpu_tests); CTEST=1 runs every GPU test after the
# benchmarks, and $MEMCHECK_FILTER / $RACECHECK_FILTER slices of fs_gpu_tests
# under compute-sanitizer last. Carry .deps and ab (and .gl for the interop test).
# Measured: the whole call takes about 60 s to start + 245-300 s to build
# (bench + fs_gpu_tests) + 15 s per benchmark run of the default arguments.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
[ -d .gl ] && install_gl_loaders
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
B=build-ab
start=$(date +%s)
configure_and_build $B filterstudio-bench ${TARGETS:-}
say "built in $(( $(date +%s) - start )) s; kernels spilling: $(count_spills)"
mkdir -p /tmp/ab
# Each variant: the engine library relinked by its own link command with the
# variant's objects in place of the tree's, into /tmp/ab/lib-NAME; the same
# benchmark then finds it through LD_LIBRARY_PATH, which comes before the
# build tree's RUNPATH. Not through ninja: it rebuilds any object whose file
# is newer than its dependency record.
link=$(ninja -C $B -t commands gpu/libfs_cuda.so | tail -1)
for v in ${AB_VARIANTS:-}; do
  name=$(basename "$v")
  mkdir -p "/tmp/ab/lib-$name"
  cmd=$link
  for o in $(cd "$v" && find . -name '*.o'); do
    o=${o#./}
    cmd=$(echo "$cmd" | sed "s# $o # $PWD/$v/$o #")
  done
  cmd=$(echo "$cmd" | sed "s#-o gpu/libfs_cuda.so #-o /tmp/ab/lib-$name/libfs_cuda.so #")
  (cd $B && eval "$cmd") >>"$OUT/build.log" 2>&1 || say "variant $name failed to link"
done
say "variants linked at $(( $(date +%s) - start )) s"
rm -f "$OUT/build.log"

if [ -n "${GTEST_FILTER:-}" ]; then
  timeout 300 $B/tests/gpu/fs_gpu_tests --gtest_filter="$GTEST_FILTER" >"$OUT/gtest.txt" 2>&1
  say "fs_gpu_tests ($GTEST_FILTER): exit $? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gtest.txt" | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure|expected" "$OUT/gtest.txt" | head -20 | tee -a "$S"
fi
unset GTEST_FILTER  # GoogleTest reads it from the environment: the ctest below must run every test

args=${BENCH_ARGS:---no-sweep --only sobel-magnitude,laplacian,gaussian:3,gaussian:31,dense:15}
for round in $(seq 1 "${ROUNDS:-2}"); do
  [ "$round" -gt 1 ] && [ $(( $(date +%s) - start )) -gt "${LAST_ROUND_BY:-100000}" ] && break
  for b in tree $(for v in ${AB_VARIANTS:-}; do basename "$v"; done); do
    lib=/tmp/ab/lib-$b
    [ $b = tree ] || [ -e $lib/libfs_cuda.so ] || continue
    LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 200 $B/tools/bench/filterstudio-bench $args \
      --csv /tmp/ab.csv >/tmp/ab/out.txt 2>&1
    say "-- $b round $round (exit $?): $args"
    grep -E "^(8K|filter|sobel|laplacian|gaussian|dense) " /tmp/ab/out.txt | tee -a "$S"
    grep -E "^  8K-(gray|rgba8) +[a-z]" /tmp/ab/out.txt | grep -v upload | tee -a "$S"
    [ "$round" = 1 ] && [ "$b" = tree ] && cp /tmp/ab/out.txt "$OUT/bench.txt"
  done
done

[ "${CTEST:-0}" = 1 ] && gpu_ctest $B
if [ -n "${MEMCHECK_FILTER:-}" ]; then
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/gpu/fs_gpu_tests \
    --gtest_filter="$MEMCHECK_FILTER" >"$OUT/sanitizer.log" 2>&1
  say "memcheck fs_gpu_tests ($MEMCHECK_FILTER): exit $? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"
fi
if [ -n "${RACECHECK_FILTER:-}" ]; then
  timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/gpu/fs_gpu_tests \
    --gtest_filter="$RACECHECK_FILTER" >>"$OUT/sanitizer.log" 2>&1
  say "racecheck fs_gpu_tests ($RACECHECK_FILTER): exit $? $(grep -E 'RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)"
fi

