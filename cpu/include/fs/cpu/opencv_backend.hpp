#pragma once
// Only in builds with OpenCV (target fs_cpu_opencv).
#include <memory>

#include "fs/backend.hpp"

namespace fs::cpu {

// Backend "cpu" with modes "reference", "parallel" and "opencv"
// (cv::filter2D / cv::sepFilter2D with the matching border).
std::unique_ptr<Backend> makeCpuBackendWithOpenCV();

}  // namespace fs::cpu
