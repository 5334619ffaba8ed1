#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace fs::bench {
// Fills rows x rowBytes (pitch apart) with random samples of depthBytes each
// (f32 in [-1, 1), u8/u16 full range).
cudaError_t fillRandom(void* data, std::size_t pitch, std::size_t rowBytes, int rows, int depthBytes, std::uint32_t seed);
// Keeps `stream` busy for `microseconds` (one thread reading the GPU's
// nanosecond timer), so the host's launch work queued behind it overlaps:
// events recorded after it time the device's work alone, not the host's
// planning and launch latency on an idle stream.
cudaError_t holdStream(cudaStream_t stream, int microseconds);
}  // namespace fs::bench
