#!/usr/bin/env bash
# Fills ab/old and ab/new (git-ignored) for scripts/device/ab_trees.sh:
# `git archive` of OLD (default HEAD~1) and of NEW (default: the working
# tree's tracked files, uncommitted changes included), without bench/results.
set -euo pipefail
cd "$(dirname "$0")/../.."
old=${1:-HEAD~1}
new=${2:-}
rm -rf ab/old ab/new
mkdir -p ab/old ab/new
git archive "$old" | tar -x -C ab/old --exclude='bench/results/*'
if [ -n "$new" ]; then
  git archive "$new" | tar -x -C ab/new --exclude='bench/results/*'
else
  git ls-files -z | grep -zv '^bench/results/' | xargs -0 cp --parents -t ab/new
fi
du -sh ab/old ab/new
