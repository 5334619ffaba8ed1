#pragma once
#include <memory>
#include <string>
#include <vector>

#include "fs/backend.hpp"

namespace fs {

// Every backend this build has, available or not, in display order:
// cpu (reference, parallel, and with OpenCV opencv-exact and opencv-native), then cuda when
// built with CUDA, then opencl (OpenCV's T-API) and opencl-cpu (the same on a CPU OpenCL device) when
// built with OpenCV. Each comes through keepingAlpha, so alpha and valid-size
// output are treated alike everywhere.
std::vector<std::unique_ptr<Backend>> makeAllBackends();
// `backend` with FilterSpec::filterAlpha and FilterSpec::outputSize applied to
// every result of run(), runWithLaunch(), its batch runner and its pipeline
// runner: unless the spec filters alpha, a 4-channel result gets the input's
// alpha back; a valid spec gets the interior of the padded result.
std::unique_ptr<Backend> keepingAlpha(std::unique_ptr<Backend> backend);
// Whether `id` names a backend FilterStudio has, built into this binary or not
// ("cuda" in a build without CUDA: unavailable here, not a typo).
bool isKnownBackendId(const std::string& id);
Backend* findBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id);

}  // namespace fs
