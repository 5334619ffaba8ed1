#pragma once
// Only in builds with OpenCV (target fs_cpu_opencv).
#include <memory>

#include "fs/backend.hpp"

namespace fs::cpu {

// Backend "cpu" with modes reference, parallel, then the two OpenCV modes:
// kOpenCvExactMode (cv::filter2D / cv::sepFilter2D into float, matching the
// reference) and kOpenCvNativeMode (OpenCV's own calls in the image's own
// depth, as an OpenCV user writes them: up to 1 level off on 8-bit images).
std::unique_ptr<Backend> makeCpuBackendWithOpenCV();

// The two OpenCV modes' ids, for tests that check one of them in particular.
extern const char* const kOpenCvExactMode;
extern const char* const kOpenCvNativeMode;

}  // namespace fs::cpu
