#pragma once
// The separable mode's quads (separable_quads.cu), for its planner.
#include <cuda_runtime.h>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "launch.hpp"

namespace fs::gpu {

// The kernel for an image of `depth` and channels (gray u8 or f32, BGR8,
// RGBA8), radius, kernels (1, or 2 for a magnitude), adjacent pixels and rows
// per thread; nullptr when not built (separableQuadBuilt).
KernelRef separableQuadVariant(Depth depth, int channels, int radius, int kernels, int pixels, int rows);
// The quads' row and column factors, kMaxKernelSize per kernel.
cudaError_t uploadSeparableQuadWeights(const float (&rows)[kMaxKernels * kMaxKernelSize],
                                       const float (&columns)[kMaxKernels * kMaxKernelSize], cudaStream_t stream);

}  // namespace fs::gpu
