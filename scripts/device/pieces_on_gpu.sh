#!/usr/bin/env bash
# The pipelined kernel time against the piece count: auto on a pinned host
# image at 8K cut into 1, 2, 3, 4, 6, 8 and 12 pieces (and the engine's own
# count), beside the resident kernel time of the whole image and of images
# the height of one piece; then 1080p and 4K at the engine's count, and
# RGBA8 Gaussian 3x3 in the registers and separable modes at several sizes.
# PREBUILT=DIR (default build) holds filterstudio-bench built for this GPU:
#   run: PREBUILT=build bash scripts/device/pieces_on_gpu.sh
#   carry: ["build/tools/bench/filterstudio-bench", "build/gpu/libfs_cuda.so", "build/core/libfs_core.so"]
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
B=${PREBUILT:-build}
bench=$B/tools/bench/filterstudio-bench
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
only=gaussian:3,gaussian:9,gaussian:15,dense:3,dense:9,dense:15,laplacian
common=(--no-sweep --border replicate --images gray,gray8,bgr8,rgba8 --modes auto --masks 3,9,15 --only "$only"
  --repeats 15)
$bench "${common[@]}" --size 7680x4320 --pipelined-csv "$OUT/pieces-8k.csv" --pieces 0,1,2,3,4,6,8,12 \
  >"$OUT/pieces-8k.txt" 2>&1
say "8K pieces exit $?"
# Appends CSV $1 to $2 without its comment lines, the header only when $2 is new.
append_csv() {
  if [ -f "$2" ]; then grep -v -e '^image,' -e '^#' "$1" >>"$2"; else grep -v '^#' "$1" >"$2"; fi
}
for h in 2160 1440 1080 720 540 360; do
  $bench "${common[@]}" --size 7680x$h --csv /tmp/r.csv >/dev/null 2>&1
  append_csv /tmp/r.csv "$OUT/resident-strips.csv"
done
say "strips done"
for size in 1920x1080 3840x2160; do
  $bench "${common[@]}" --size $size --pipelined-csv /tmp/p.csv >/dev/null 2>&1
  append_csv /tmp/p.csv "$OUT/pieces-small.csv"
done
say "1080p/4K done"
for size in 1280x720 1920x1080 2560x1440 3200x1800 3840x2160 5120x2880 7680x4320; do
  $bench --no-sweep --border replicate --images rgba8 --modes auto,registers,separable --only gaussian:3 \
    --size $size --repeats 20 --csv /tmp/g.csv >/dev/null 2>&1
  append_csv /tmp/g.csv "$OUT/rgba8-gaussian3.csv"
done
say "rgba8 gaussian 3 done"
