#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace fs::bench {
// Fills rows x rowBytes (pitch apart) with random samples of depthBytes each
// (f32 in [-1, 1), u8/u16 full range).
cudaError_t fillRandom(void* data, std::size_t pitch, std::size_t rowBytes, int rows, int depthBytes, std::uint32_t seed);
}  // namespace fs::bench
