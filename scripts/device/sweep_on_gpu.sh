#!/usr/bin/env bash
# The full size sweep: Gaussian and dense kernels of every odd size 3..31 (and
# dense 63 for the fft mode, at 8K) on the benchmark's four layouts (gray f32,
# gray u8, BGR u8, RGBA8) at each frame size of FRAMES (default 1920x1080
# 3840x2160 7680x4320), every mode of ours with each case's floor, auto's
# pipelined kernel time beside its resident one (pipelined.csv), then the
# peers on the same GPU: NPP (npp-peers), cuDNN and CuPy (peers.py) and
# OpenCV's OpenCL (opencl_peers.py), paired in one table (table.txt, and
# table.md in Markdown for the README). Carry
# .deps. STEPS (default "ours npp cudnn opencl") splits it across calls of
# the device's 10-minute limit; the table pairs whichever peer CSVs are in
# $OUT (or run peers.py --compare on the CSVs later). SIZES, IMAGES, FRAMES
# and MODES change the run; BORDER (default replicate, the one border NPP's
# filters have) is every side's border; PEER_SIZES narrows cuDNN, CuPy and OpenCL alone,
# OPENCL_SIZES OpenCL alone (at every size the three take about 390 s on the
# H100: with PEERS_CASES they fit one call beside the build, ours and NPP,
# but not beside CTEST=1's tests).
# PEERS_CASES=CSV runs the cudnn and opencl steps while the build keeps the
# GPU idle, on the cases of an earlier ours.csv (its cases, not its times),
# so that one call holds the whole sweep: ours, NPP and those peers. CTEST=1
# builds every target and runs the GPU tests last (carry .gl too for the
# interop test); RACECHECK=FILTER then runs compute-sanitizer's racecheck on
# the launch-matrix tests FILTER names (racecheck.txt), e.g.
# 'Cuda/LaunchMatrix.*/shared_u8_c3:Cuda/LaunchMatrix.*/shared_u8_c4' for
# the shared mode's colour kernels.
# PREBUILT=DIR skips the build: DIR holds filterstudio-bench and the
# libraries built for this GPU on the development machine and carried (e.g.
# build-sm90: tools/bench, gpu, core); npp-peers is compiled here with nvcc.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
B=${PREBUILT:-build-sweep}
start=$(date +%s)
steps=" ${STEPS:-ours npp cudnn opencl} "
sizes=${SIZES:-3,5,7,9,11,13,15,17,19,21,23,25,27,29,31}
frames=${FRAMES:-1920x1080 3840x2160 7680x4320}
border=${BORDER:-replicate}
images=${IMAGES:-gray,gray8,bgr8,rgba8}
# The teaching modes (global, constant, texture, shared-textbook) never win
# and take seconds a call on colour 31x31 (shared-textbook 3-4 s): the sweep
# times the modes that compete unless MODES names others.
modes=(--modes "${MODES:-auto,registers,shared,separable,fft}")

peer_sizes=",${PEER_SIZES:-$sizes},"
opencl_sizes=${OPENCL_SIZES:-${PEER_SIZES:-$sizes}}
# The cuDNN/CuPy and OpenCL steps STEPS asks for, on the cases of a CSV of ours.
run_peers() {
  rm -f /tmp/peers.txt /tmp/opencl.txt
  if [[ $steps == *" cudnn "* ]]; then
    awk -F, -v keep="$peer_sizes" 'NR == 1 || index(keep, "," $7 ",")' "$1" >/tmp/ours-peers.csv
    timeout "${PEERS_SECONDS:-420}" python3 bench/peers/peers.py /tmp/ours-peers.csv --border "$border" \
      --out "$OUT/peers.csv" >/tmp/peers.txt 2>&1
    echo "peers.py (cuDNN, CuPy) exit $?" >>/tmp/peers.txt
  fi
  if [[ $steps == *" opencl "* ]]; then
    timeout "${OPENCL_SECONDS:-300}" python3 bench/peers/opencl_peers.py --images "$images" --sizes "$opencl_sizes" \
      --out "$OUT/opencl.csv" >/tmp/opencl.txt 2>&1
    echo "opencl_peers.py exit $?" >>/tmp/opencl.txt
  fi
}
report_peers() {
  if [ -f /tmp/peers.txt ]; then tail -1 /tmp/peers.txt | tee -a "$S"; tail -3 /tmp/peers.txt | head -2 >>"$S"; fi
  if [ -f /tmp/opencl.txt ]; then head -1 /tmp/opencl.txt | tee -a "$S"; tail -3 /tmp/opencl.txt >>"$S"; fi
}
# Appends CSV $1 to $2, its header only when $2 is new.
append_csv() {
  if [ -f "$2" ]; then grep -v '^image,' "$1" >>"$2"; else cp "$1" "$2"; fi
}
peers_pid=
if [ -n "${PEERS_CASES:-}" ]; then
  run_peers "$PEERS_CASES" &
  peers_pid=$!
fi
if [ -n "${PREBUILT:-}" ]; then
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  mkdir -p "$B/bench/peers"
  nvcc -O2 -std=c++17 bench/peers/npp_peers.cpp -o "$B/bench/peers/npp-peers" -lnppif -lnppc >"$OUT/build.log" 2>&1 ||
    { tail "$OUT/build.log" | tee -a "$S"; exit 1; }
  rm -f "$OUT/build.log"
elif [[ ${CTEST:-0} = 1 || $steps == *" ours "* || $steps == *" npp "* ]]; then
  targets=(filterstudio-bench npp-peers)
  if [ "${CTEST:-0}" = 1 ]; then
    [ -d .gl ] && install_gl_loaders
    targets=()  # every target: the tests too
  fi
  configure_and_build $B "${targets[@]}"
  say "built in $(( $(date +%s) - start )) s"
  rm -f "$OUT/build.log"
fi
if [ -n "$peers_pid" ]; then
  wait "$peers_pid"  # our timings must not share the GPU
  say "peers during the build done at $(( $(date +%s) - start )) s"; report_peers
fi
if [[ $steps == *" ours "* ]]; then
  rm -f "$OUT/ours.csv" "$OUT/pipelined.csv" "$OUT/bench.txt"
  for frame in $frames; do
    $B/tools/bench/filterstudio-bench --no-sweep --size "$frame" --border "$border" --images "$images" "${modes[@]}" \
      --masks "$sizes" --csv /tmp/sweep.csv --pipelined-csv /tmp/pipelined.csv >>"$OUT/bench.txt" 2>&1
    say "bench $frame exit $?"
    append_csv /tmp/sweep.csv "$OUT/ours.csv"
    append_csv /tmp/pipelined.csv "$OUT/pipelined.csv"
  done
  if [ "${DENSE63:-1}" = 1 ]; then
    $B/tools/bench/filterstudio-bench --border "$border" --images "$images" --modes fft,auto --only dense:63 \
      --csv /tmp/sweep63.csv >>"$OUT/bench.txt" 2>&1
    say "bench dense 63 exit $?"
    grep -v '^image,' /tmp/sweep63.csv >>"$OUT/ours.csv"
  fi
  grep -E "^ceilings|^floors" "$OUT/bench.txt" | head -2 | tee -a "$S"
  python3 bench/peers/pipelined_summary.py "$OUT/pipelined.csv" | tee -a "$S"
fi
if [[ $steps == *" npp "* ]]; then
  rm -f "$OUT/npp.csv"
  for frame in $frames; do
    $B/bench/peers/npp-peers --size "$frame" --border "$border" --sizes "$sizes" --out /tmp/npp-frame.csv >>/tmp/npp.txt 2>&1
    say "npp-peers $frame exit $?"
    append_csv /tmp/npp-frame.csv "$OUT/npp.csv"
  done
fi
if [[ -z "$peers_pid" && ( $steps == *" cudnn "* || $steps == *" opencl "* ) ]]; then
  [[ $steps != *" cudnn "* || -f "$OUT/ours.csv" ]] || { say "cudnn needs ours in the same call"; exit 1; }
  run_peers "$OUT/ours.csv"; report_peers
fi
if [ -f "$OUT/ours.csv" ]; then
  peer_csvs=()
  for f in npp peers opencl; do [ -f "$OUT/$f.csv" ] && peer_csvs+=("$OUT/$f.csv"); done
  if [ ${#peer_csvs[@]} -gt 0 ]; then
    for format in txt md; do
      markdown=(); [ $format = md ] && markdown=(--markdown)
      python3 bench/peers/peers.py "$OUT/ours.csv" --compare "${peer_csvs[@]}" "${markdown[@]}" \
        --out /tmp/table.csv >"$OUT/table.$format" 2>&1
    done
  fi
fi
[ "${CTEST:-0}" = 1 ] && gpu_ctest $B
if [ "${CTEST:-0}" = 1 ] && [ -n "${RACECHECK:-}" ]; then
  timeout "${RACECHECK_SECONDS:-240}" compute-sanitizer --tool racecheck "$B/tests/gpu/fs_gpu_launch_tests" \
    --gtest_filter="$RACECHECK" >"$OUT/racecheck.txt" 2>&1
  say "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$OUT/racecheck.txt" | tr '\n' ' ')"
fi
say "took $(( $(date +%s) - start )) s"
