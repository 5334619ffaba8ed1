#pragma once
// N:M:M layers (fs/layer.hpp) on the CPU: each output row is the sum over
// inputs and taps, in float, then the bank's mapping once.
#include <memory>

#include "fs/layer.hpp"

namespace fs::cpu {

// `parallel`: output rows spread over the CPU's cores; else one thread (the reference).
std::unique_ptr<LayerRunner> makeCpuLayerRunner(bool parallel);

}  // namespace fs::cpu
