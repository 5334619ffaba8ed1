// What this build compiled device code for, and the probe that asks the
// runtime whether the current GPU has code in it. Compiled with the same
// architectures as every other kernel file of fs_cuda.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "driver_check.hpp"

namespace fs::gpu {
namespace {
__global__ void kernelImageProbe() {}
}  // namespace

std::vector<int> builtArchitectures() {
    // nvcc's list of the virtual architectures compiled (750, 860, 1200).
    std::vector<int> archs{__CUDA_ARCH_LIST__};
    for (int& a : archs) a /= 10;
    std::sort(archs.begin(), archs.end());
    archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
    return archs;
}

// cudaErrorNoKernelImageForDevice (or cudaErrorInvalidDeviceFunction) when
// the current device can run none of this build's code.
cudaError_t probeKernelImage() {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, kernelImageProbe);
}

}  // namespace fs::gpu
