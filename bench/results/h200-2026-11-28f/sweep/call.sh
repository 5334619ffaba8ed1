#!/usr/bin/env bash
# The full sweep with every peer on the landed tree, from carried sm_90 binaries.
gunzip -c build-sm90/gpu/libfs_cuda.so.gz >build-sm90/gpu/libfs_cuda.so
PREBUILT=build-sm90 bash scripts/device/sweep_on_gpu.sh
