#pragma once
#include <memory>
#include <vector>

#include "fs/backend.hpp"

namespace fs {

// Every backend this build has, available or not, in display order:
// cpu (reference, parallel, and with OpenCV opencv-exact and opencv-native), then cuda when
// built with CUDA, then opencl (OpenCV's T-API) and opencl-cpu (the same on a CPU OpenCL device) when
// built with OpenCV.
std::vector<std::unique_ptr<Backend>> makeAllBackends();
Backend* findBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id);

}  // namespace fs
