#!/usr/bin/env bash
# Compiles one variant of a CUDA source file on this machine for ab_bench.sh,
# which links it into a second benchmark on the GPU machine in seconds
# instead of recompiling there (one large .cu file takes minutes alone):
#   scripts/device/ab_object.sh NAME FILE [SOURCE]
# compiles SOURCE (default: FILE as it is now) with FILE's flags from
# build-dev/compile_commands.json into ab/NAME/<FILE's object path in the build
# tree>. build-dev must be configured as on the GPU machine:
#   cmake -G Ninja -S . -B build-dev -DFS_WITH_QT=OFF -DFS_WITH_OPENCV=OFF -DCMAKE_BUILD_TYPE=Release
# Then carry ab (git-ignored) and pass AB_VARIANTS="ab/NAME ..." to ab_bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=$1 file=$2 source=${3:-$2}
python3 - "$name" "$file" "$source" <<'PY'
import json, os, shlex, subprocess, sys
name, file, source = sys.argv[1:]
root = os.getcwd()
entry = next(e for e in json.load(open("build-dev/compile_commands.json"))
             if os.path.realpath(e["file"]) == os.path.realpath(file))
args = shlex.split(entry["command"])
obj = args[args.index("-o") + 1]                       # relative to the build tree
args[args.index("-o") + 1] = out = os.path.join(root, "ab", name, obj)
args = [os.path.realpath(source) if a == entry["file"] else a for a in args]
os.makedirs(os.path.dirname(out), exist_ok=True)
subprocess.run(args, cwd=entry["directory"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(out)
PY
