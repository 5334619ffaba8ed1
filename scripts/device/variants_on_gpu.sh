#!/usr/bin/env bash
# Which compiled-radius kernel variants earn their place: every 8K image the
# benchmark knows (u8, u16, f32; 1, 3 and 4 channels), the registers, shared
# and separable modes, each case timed with the kernel the default build
# launches and with the run-time radius kernel (--radius runtime), rounds
# interleaved. Prints, per case, the run-time kernel's time over the
# default's: near 1.00 means the compiled variant measures no gain
# (gpu/README.md, "Architectures and kept variants"). Carry .deps.
# ROUNDS (default 2), IMAGES (default all nine) and MODES narrow the run.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
B=build-variants
start=$(date +%s)
configure_and_build $B filterstudio-bench
say "built in $(( $(date +%s) - start )) s"
rm -f "$OUT/build.log"
images=${IMAGES:-gray,gray8,bgr8,rgba8,gray16,bgr16,rgba16,bgr32f,rgba32f}
modes=${MODES:-registers,shared,separable}
mkdir -p "$OUT/variants"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for radius in compiled runtime; do
    args=()
    [ $radius = runtime ] && args=(--radius runtime)
    # 3x3 to 7x7 (and the magnitudes at 5 and 7: run-time in both, the noise
    # floor) in every mode; 15 and 31 only where a mode compiles them.
    $B/tools/bench/filterstudio-bench --no-sweep --images "$images" --modes "$modes" --masks 3,5,7 \
      "${args[@]}" >"$OUT/variants/small-$radius-$round.txt" 2>&1
    say "round $round $radius 3..7: exit $?"
    $B/tools/bench/filterstudio-bench --images "$images" --modes shared,separable \
      --only gaussian:15,dense:15,gaussian:31,dense:31 \
      "${args[@]}" >"$OUT/variants/large-$radius-$round.txt" 2>&1
    say "round $round $radius 15, 31: exit $?"
  done
done
python3 scripts/device/variants_table.py "$OUT/variants" | tee -a "$S"
say "took $(( $(date +%s) - start )) s"
