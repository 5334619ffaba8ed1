// What this build compiled device code for, and the probe that asks the
// runtime whether the current GPU has code in it. Compiled with the same
// architectures as every other kernel file of fs_cuda.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "driver_check.hpp"

#define FS_CUDA_STRING_OF(x) #x
#define FS_CUDA_STRING(x) FS_CUDA_STRING_OF(x)

namespace fs::gpu {
namespace {
__global__ void kernelImageProbe() {}
}  // namespace

std::vector<int> builtArchitectures() {
#if defined(FS_CUDA_BUILT_ARCHITECTURES)
    // The list CMake compiled for ("75_86_120"): machine code may come from
    // the PTX of a lower architecture, which nvcc's own list names instead.
    std::vector<int> archs;
    const std::string text = FS_CUDA_STRING(FS_CUDA_BUILT_ARCHITECTURES);
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('_', at), text.size());
        archs.push_back(std::stoi(text.substr(at, end - at)));
        at = end + 1;
    }
#else
    // nvcc's list of the virtual architectures compiled (750, 860, 1200).
    std::vector<int> archs{__CUDA_ARCH_LIST__};
    for (int& a : archs) a /= 10;
#endif
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
