#pragma once
// Telling "no NVIDIA driver at all" apart from "a driver too old for this
// CUDA": the CUDA runtime reports both as cudaErrorInsufficientDriver.
// Plain C++ (no CUDA headers), so the host tests check it on any machine.
#include <string>

namespace fs::gpu {

// True when any part of an NVIDIA driver is installed: the kernel module
// (its version file) or the user-space driver library.
bool nvidiaDriverInstalled(const std::string& moduleVersionFile = "/proc/driver/nvidia/version",
                           const std::string& driverLibrary = "libcuda.so.1");

// Why the CUDA backend is unavailable after cudaGetDeviceCount failed:
// `cudaText` is the runtime's own "name (description)"; `insufficientDriver`
// whether the error was cudaErrorInsufficientDriver.
std::string noDeviceReason(bool insufficientDriver, bool driverInstalled, const std::string& cudaText);

}  // namespace fs::gpu
