// Random device images for the benchmark (hash of the index and a seed), so
// timings never run on zeros and no host-side generation is needed.
#include <cuda_runtime.h>

#include <cstdint>

#include "bench_fill.hpp"

namespace fs::bench {
namespace {

__device__ std::uint32_t hash(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__global__ void fillKernel(unsigned char* data, std::size_t pitch, std::size_t rowBytes, int rows, int depthBytes,
                           std::uint32_t seed) {
    const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * depthBytes;
    const int y = blockIdx.y;
    if (i >= rowBytes || y >= rows) return;
    const std::uint32_t h = hash(static_cast<std::uint32_t>(i) * 7919u + static_cast<std::uint32_t>(y) * 104729u + seed);
    unsigned char* p = data + y * pitch + i;
    if (depthBytes == 4) *reinterpret_cast<float*>(p) = static_cast<float>(h & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
    else if (depthBytes == 2) *reinterpret_cast<std::uint16_t*>(p) = static_cast<std::uint16_t>(h);
    else *p = static_cast<unsigned char>(h);
}

__device__ std::uint64_t globalNanoseconds() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void holdKernel(std::uint64_t nanoseconds) {
    const std::uint64_t start = globalNanoseconds();
    while (globalNanoseconds() - start < nanoseconds) {
    }
}

constexpr int kFmaChains = 8;     // independent chains per thread: FMA latency hidden
constexpr int kFmaThreads = 256;

__global__ void __launch_bounds__(kFmaThreads) fmaBurstKernel(float* sink, int iterations, float scale, float offset) {
    float x[kFmaChains];
#pragma unroll
    for (int i = 0; i < kFmaChains; ++i) x[i] = static_cast<float>(threadIdx.x + i) * 1e-3f;
#pragma unroll 16
    for (int n = 0; n < iterations; ++n)
#pragma unroll
        for (int i = 0; i < kFmaChains; ++i) x[i] = fmaf(x[i], scale, offset);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kFmaChains; ++i) sum += x[i];
    if (sum == 1234.5f) *sink = sum;  // never true; keeps the chains from being removed
}

}  // namespace

double launchFmaBurst(cudaStream_t stream, int blocks, int iterations, float* sink) {
    fmaBurstKernel<<<blocks, kFmaThreads, 0, stream>>>(sink, iterations, 0.999999f, 1e-7f);
    return cudaGetLastError() == cudaSuccess ? static_cast<double>(blocks) * kFmaThreads * kFmaChains * iterations : 0.0;
}

cudaError_t holdStream(cudaStream_t stream, int microseconds) {
    holdKernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(microseconds) * 1000u);
    return cudaGetLastError();
}

cudaError_t fillRandom(void* data, std::size_t pitch, std::size_t rowBytes, int rows, int depthBytes,
                       std::uint32_t seed) {
    // Grid y = image row (at most 22400 here, under the 65535 limit).
    const int samples = static_cast<int>(rowBytes / depthBytes);
    const dim3 grid((samples + 255) / 256, rows);
    fillKernel<<<grid, 256>>>(static_cast<unsigned char*>(data), pitch, rowBytes, rows, depthBytes, seed);
    return cudaGetLastError();
}

}  // namespace fs::bench
