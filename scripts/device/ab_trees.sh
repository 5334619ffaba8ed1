#!/usr/bin/env bash
# Two source trees side by side in one device call: ab/new (the change) and
# ab/old (the tree it is measured against), each a `git archive` made on the
# development machine by scripts/device/export_trees.sh. Builds both (sm_90,
# Qt-less, OpenCV-less; old: the benchmark only), then:
#  - new's GPU tests (CTEST=1, the default), and compute-sanitizer memcheck
#    and racecheck on $SANITIZE_TESTS (test binaries with their filters);
#  - filterstudio-bench's 8K sweep (auto, every odd size 3..31, four layouts),
#    old and new interleaved $ROUNDS times (default 2), and the verdict of
#    bench/ab_compare.py (median of rounds; the cases more than 2% slower);
#  - new's dispatch test against new's sweep CSV (explain = what ran).
# Carry ab, .deps (and .gl for the interop test).
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
[ -d .gl ] && install_gl_loaders
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
start=$(date +%s)
# build SOURCE DIR LOG ARCH_ARGS [targets...]: as build_tree, for sm_90 alone.
# NEW_ARCH_ARGS="-DCMAKE_CUDA_ARCHITECTURES=OFF -DFS_CUDA_DEFAULT_ARCHITECTURES=90-real"
# builds new's sm_90 code as the default build makes it (its PTX grouping).
build() {
  local src=$1 dir=$2 log=$3 arch=$4
  shift 4
  # shellcheck disable=SC2086  # ARCH_ARGS holds several arguments
  cmake -G Ninja -S "$src" -B "$dir" -DFS_WITH_QT=OFF -DFS_WITH_OPENCV=OFF -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
    -DCMAKE_INCLUDE_PATH="$PWD/.deps/include" -DCMAKE_BUILD_TYPE=Release $arch \
    >"$log" 2>&1 && ninja -C "$dir" "$@" >>"$log" 2>&1
}
build ab/old build-old "$OUT/build-old.log" -DCMAKE_CUDA_ARCHITECTURES=90 filterstudio-bench &
old=$!
targets=()
[ "${CTEST:-1}" = 1 ] || targets=(filterstudio-bench fs_gpu_dispatch_tests fs_gpu_engine_host_tests)
build ab/new build-new "$OUT/build.log" "${NEW_ARCH_ARGS:--DCMAKE_CUDA_ARCHITECTURES=90}" "${targets[@]}" ||
  { grep -E "error|FAILED|CMake Error" "$OUT/build.log" | head -30 | tee -a "$S"; exit 1; }
wait $old || { grep -E "error|FAILED" "$OUT/build-old.log" | head -20 | tee -a "$S"; exit 1; }
rm -f "$OUT/build.log" "$OUT/build-old.log"
say "built both in $(( $(date +%s) - start )) s"

sweep=(--no-sweep --images gray,gray8,bgr8,rgba8 --modes auto --masks 3,5,7,9,11,13,15,17,19,21,23,25,27,29,31)
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in old new; do
    timeout 240 build-$side/tools/bench/filterstudio-bench "${sweep[@]}" --csv "/tmp/$side-$round.csv" >/tmp/bench.txt 2>&1
    say "bench $side round $round: exit $?"
  done
done
python3 ab/new/bench/ab_compare.py --old /tmp/old-*.csv --new /tmp/new-*.csv --limit 1.02 | tee -a "$S"
cp /tmp/new-1.csv "$OUT/sweep-new.csv"

FS_BENCH_CSV=/tmp/new-1.csv build-new/tests/gpu/fs_gpu_dispatch_tests >"$OUT/dispatch.txt" 2>&1
say "dispatch tests against the sweep: exit $? $(grep -E '^checked|PASSED|FAILED' "$OUT/dispatch.txt" | tr '\n' ' ')"

build-new/tests/gpu/fs_gpu_engine_host_tests >"$OUT/host.txt" 2>&1
say "engine host tests: exit $? $(grep -E 'PASSED|FAILED' "$OUT/host.txt" | tr '\n' ' ')"
[ "${CTEST:-1}" = 1 ] && gpu_ctest build-new
for t in ${SANITIZE_TESTS:-}; do  # binary:filter
  bin=${t%%:*} filter=${t#*:}
  for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 build-new/tests/gpu/$bin --gtest_filter="$filter" \
      >>"$OUT/sanitizer.log" 2>&1
    say "$tool $bin ($filter): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)"
  done
done
say "done at $(( $(date +%s) - start )) s"
