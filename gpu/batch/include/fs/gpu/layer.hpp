#pragma once
// Plain C++ (no CUDA header): N:M:M layers (fs/layer.hpp) on the CUDA device.
#include <memory>

#include "fs/layer.hpp"

namespace fs::gpu {

// Uploads the N inputs once, then one launch computes all M outputs (grid z
// over outputs; each thread sums every input's taps for its pixel), then the
// M outputs come down. Timing: uploadMs, kernelMs, downloadMs from events,
// totalMs the whole run. Without a device every run carries the reason.
std::unique_ptr<LayerRunner> makeCudaLayerRunner();

}  // namespace fs::gpu
