#!/usr/bin/env bash
# Checks a change to the GPU engine on the GPU machine, in stages that each
# fit one device call (the build folders stay while the machine is warm):
#   build   this tree and a "before" tree (.before, from `git archive BASE`)
#   test    every GPU test, memcheck on the engine's concurrency test
#   bench   the 8K benchmark of both builds in alternating rounds (A B A B)
#   frames  the live preview's frame benchmark
# Usage: scripts/device/verify_engine.sh build,test,bench,frames
# Carry .deps, .gl and .before. Logs go to $OUT: summary.txt first.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
install_gl_loaders
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
STAGES=",${1:-build,test,bench,frames},"
stage() { [[ $STAGES == *",$1,"* ]]; }

if stage build; then
start=$(date +%s)
# Both trees at once, half the cores each.
build_tree . build-after /tmp/after.log -j8 &
after=$!
if [ -d .before ]; then
  build_tree .before build-before /tmp/before.log -j8 filterstudio-bench &
  wait $! || grep -E "error|FAILED" /tmp/before.log | head -20 | tee -a "$S"
fi
wait $after || { grep -E "error|FAILED" /tmp/after.log | head -30 | tee -a "$S"; exit 1; }
say "built in $(( $(date +%s) - start )) s"
fi

if stage test; then
gpu_ctest build-after
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 build-after/tests/gpu/fs_gpu_concurrency_tests \
  --gtest_filter="${MEMCHECK:-*}" >"$OUT/sanitizer.log" 2>&1
say "memcheck concurrency tests (${MEMCHECK:-*}): exit $? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"
fi

if stage bench && [ -x build-before/tools/bench/filterstudio-bench ]; then
  for round in 1 2; do
    for side in before after; do
      build-$side/tools/bench/filterstudio-bench --no-sweep --csv /tmp/bench-$side-$round.csv >/tmp/bench-$side-$round.txt 2>&1
      say "bench $side round $round: exit $?"
    done
  done
  python3 - >"$OUT/bench-compare.txt" <<'PY'
import csv, glob, collections
best = collections.defaultdict(dict)
for side in ("before", "after"):
    for path in glob.glob(f"/tmp/bench-{side}-*.csv"):
        for r in csv.DictReader(open(path)):
            if not r["kernel_ms"]:
                continue  # a mode that refuses this filter
            key = (r["image"], r["filter"], r["mask"], r["mode"])
            t = float(r["kernel_ms"])
            best[key][side] = min(t, best[key].get(side, t))
worst = 0.0
print("image filter mask mode: before ms, after ms, after/before (best of 2 rounds each)")
for key in sorted(best):
    b, a = best[key].get("before"), best[key].get("after")
    if b and a:
        worst = max(worst, a / b)
        print(f"{' '.join(key)}: {b:.4f} {a:.4f} {a / b:.3f}{'  SLOWER >3%' if a > 1.03 * b else ''}")
print(f"worst after/before: {worst:.3f}")
PY
  tail -1 "$OUT/bench-compare.txt" | tee -a "$S"
  grep -c "SLOWER" "$OUT/bench-compare.txt" | sed 's/^/cases slower by >3%: /' | tee -a "$S"
  cp /tmp/bench-after-2.csv "$OUT/bench.csv"
  sed -n '/^TARGETS/,$p' /tmp/bench-after-2.txt | tee -a "$S"
fi

if stage frames && [ -x build-after/tools/framebench/filterstudio-frame-bench ]; then
  build-after/tools/framebench/filterstudio-frame-bench --csv "$OUT/frames.csv" >"$OUT/frames.txt" 2>&1
  say "frame bench exit $?"
  tail -14 "$OUT/frames.txt" | tee -a "$S"
fi
