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
// Launches `blocks` x 256 threads, each running kFmaChains independent chains
// of `iterations` single-precision FMAs: the device's FP32 FMA rate, the
// floor of compute-bound (dense) kernels. Returns the FMAs launched.
double launchFmaBurst(cudaStream_t stream, int blocks, int iterations, float* sink);
}  // namespace fs::bench
