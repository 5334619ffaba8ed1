#pragma once
// Internal to gpu/batch: many filters on one device image in one launch.
// Each block stages a 32x32 output tile plus the largest halo in shared memory
// once per border, then every filter of the launch reads its taps from there;
// the weights of all filters sit in constant memory (one broadcast per tap).
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "device_image.hpp"
#include "dispatch.hpp"
#include "launch.hpp"

namespace fs::gpu::batch {

constexpr int kFusedMaxSize = kBatchFusedMaxSide;        // larger kernels take auto's rules (dispatch.hpp)
constexpr int kFusedMaxFilters = kBatchFusedMaxFilters;  // per launch: they travel as kernel parameters
constexpr int kFusedWeightCapacity = 12288;  // floats of constant memory (48 KB)

struct FusedFilter {
    KernelMath math;
    int weightOffset = 0;  // into the weights of uploadFusedWeights()
    BorderMode border = BorderMode::Reflect101;
    float borderValue = 0.0f;
    int borderGroup = 0;        // consecutive filters of one group share the staged tile
    std::size_t dstOffset = 0;  // bytes from the launch's output base
    std::size_t dstPitch = 0;
};

struct FusedLaunch {
    int count = 0;
    int rx = 0, ry = 0;  // the tile's halo: the largest radii among the filters
    FusedFilter filters[kFusedMaxFilters];
};

// The weights of every filter fused in this pass, to constant memory, in the
// order of `s` (the caller waits for `s` before other streams launch).
cudaError_t uploadFusedWeights(const std::vector<float>& weights, cudaStream_t s);

// Every filter of `launch` on `in` (any depth, 1/3/4 channels), each writing
// in.width x in.height pixels at outBase + dstOffset.
cudaError_t launchFused(const DeviceView& in, unsigned char* outBase, const FusedLaunch& launch, cudaStream_t s);

// How the launch is shaped, for TimingRecord::launch.
const char* fusedLaunchLabel();

}  // namespace fs::gpu::batch
