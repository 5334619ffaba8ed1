#pragma once
// Telling "no NVIDIA driver at all" apart from "a driver too old for this
// CUDA": the CUDA runtime reports both as cudaErrorInsufficientDriver.
// Plain C++ (no CUDA headers), so the host tests check it on any machine.
#include <cstddef>
#include <string>
#include <vector>

#include "fs/host_info.hpp"  // nvidiaModuleVersion

namespace fs::gpu {

// True when any part of an NVIDIA driver is installed: the kernel module
// (its version file) or the user-space driver library.
bool nvidiaDriverInstalled(const std::string& moduleVersionFile = "/proc/driver/nvidia/version",
                           const std::string& driverLibrary = "libcuda.so.1");

// Why the CUDA backend is unavailable after cudaGetDeviceCount failed:
// `cudaText` is the runtime's own "name (description)"; `insufficientDriver`
// whether the error was cudaErrorInsufficientDriver.
std::string noDeviceReason(bool insufficientDriver, bool driverInstalled, const std::string& cudaText);

// The architectures this build compiled device code for, as nvcc numbers
// them (75, 86, 120), lowest first (build_architectures.cu).
std::vector<int> builtArchitectures();
// "sm_75, sm_80 and sm_120".
std::string architectureList(const std::vector<int>& archs);
// "7.5" for 75, "12.0" for 120.
std::string computeCapabilityText(int arch);
// Why a GPU whose compute capability is `arch` cannot run this build's
// kernels: its name and compute capability, what was built, and the cmake
// option that builds for it. Said before any launch, instead of the
// runtime's "no kernel image" or "invalid device function" at the first one.
std::string noKernelImageReason(const std::string& gpuName, int arch, const std::vector<int>& built);

// One GPU as the device list shows it.
struct GpuDescription {
    std::string name;
    int arch = 0;  // compute capability as nvcc numbers it: 75, 120
    std::size_t memoryBytes = 0;
    bool runsThisBuild = false;  // the runtime found code for it in this build
};

// "13.0" for the runtime's 13000; "none" for 0 (no driver).
std::string cudaVersionText(int version);
// The device list (`filterstudio-cli modes`): one line per GPU with its name,
// compute capability, memory, the driver and runtime versions and whether
// this build runs on it, then the architectures built; `problem` (no driver,
// no device) replaces the GPU lines.
std::vector<std::string> deviceListLines(const std::vector<GpuDescription>& gpus, const std::string& problem,
                                         int driverVersion, const std::string& moduleVersion, int runtimeVersion,
                                         const std::vector<int>& built);

}  // namespace fs::gpu
