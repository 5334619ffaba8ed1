#pragma once
// Only in builds with OpenCV (target fs_opencl). Plain C++ header: no OpenCL
// or OpenCV types leak out, so the UI includes it like any other backend.
#include <memory>

#include "fs/backend.hpp"

namespace fs::opencl {

// Backend "opencl": the FilterSpec through OpenCV's transparent API (cv::UMat,
// cv::filter2D / cv::sepFilter2D) on OpenCV's default OpenCL device. Modes
// "filter2d" (always a 2-D window) and "auto" (two 1-D passes for rank-1
// kernels). Unavailable, with the reason, when OpenCV finds no usable device.
std::unique_ptr<Backend> makeOpenClBackend();

// Backend "opencl-cpu", shown as "OpenCL on the CPU": the same modes on the first CPU OpenCL device (PoCL),
// through an OpenCL context of its own, so it needs no OPENCV_OPENCL_DEVICE and no restart. Unavailable,
// with the reason, when there is no CPU OpenCL device.
std::unique_ptr<Backend> makeOpenClCpuBackend();

}  // namespace fs::opencl
