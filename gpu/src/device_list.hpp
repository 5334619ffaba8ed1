#pragma once
// Internal: the CUDA devices as `filterstudio-cli modes` lists them, and the
// one wording of why no device can be used.
#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace fs::gpu {

// Why cudaGetDeviceCount failed with `err`: "no NVIDIA driver found", "no
// CUDA device found", or the runtime's words (a driver too old).
std::string deviceCountProblem(cudaError_t err);
// deviceListLines for this machine (driver_check.hpp); leaves device 0 current.
std::vector<std::string> describeCudaDevices();

}  // namespace fs::gpu
