#pragma once
// Weights in __constant__ memory: every thread of a warp reads the same tap at
// the same time, which the constant cache serves as one broadcast. Internal
// linkage, so each mode file that includes this has its own copy.
#include <cuda_runtime.h>

#include "launch.hpp"

namespace fs::gpu {
// Anonymous namespace: each mode file gets its own symbol AND its own upload
// function; an inline function with external linkage would be merged by the
// linker and fill only one file's copy.
namespace {

// 2 kernels of 63 x 63 floats = 31.8 KB, inside the 64 KB constant bank, so
// every valid FilterSpec fits and no fallback is needed.
__constant__ float c_weights[kMaxKernels * kMaxKernelSize * kMaxKernelSize];

struct ConstantWeights {
    __device__ __forceinline__ float operator()(int i) const { return c_weights[i]; }
};

inline cudaError_t uploadConstantWeights(const PreparedFilter& f, cudaStream_t stream) {
    return cudaMemcpyToSymbolAsync(c_weights, f.weights.data(), f.weights.size() * sizeof(float), 0,
                                   cudaMemcpyHostToDevice, stream);
}

}  // namespace
}  // namespace fs::gpu
