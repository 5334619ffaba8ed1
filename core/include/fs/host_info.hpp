#pragma once
// What the host says of itself, for benchmark records and the device list:
// plain file reads, no Qt, OpenCV or CUDA.
#include <string>

namespace fs {

// The NVIDIA kernel module's version ("580.95.05") from its version file;
// empty when there is none (no NVIDIA driver) or it cannot be read.
std::string nvidiaModuleVersion(const std::string& versionFile = "/proc/driver/nvidia/version");

}  // namespace fs
