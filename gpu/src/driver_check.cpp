#include "driver_check.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

namespace fs::gpu {

bool nvidiaDriverInstalled(const std::string& moduleVersionFile, const std::string& driverLibrary) {
    if (::access(moduleVersionFile.c_str(), F_OK) == 0) return true;
    void* library = ::dlopen(driverLibrary.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!library) return false;
    ::dlclose(library);
    return true;
}

std::string computeCapabilityText(int arch) {
    return std::to_string(arch / 10) + "." + std::to_string(arch % 10);
}

std::string architectureList(const std::vector<int>& archs) {
    std::string s;
    for (std::size_t i = 0; i < archs.size(); ++i)
        s += (i == 0 ? "" : i + 1 == archs.size() ? " and " : ", ") + ("sm_" + std::to_string(archs[i]));
    return s.empty() ? "no architecture" : s;
}

std::string noKernelImageReason(const std::string& gpuName, int arch, const std::vector<int>& built) {
    const std::string what = gpuName + " (compute capability " + computeCapabilityText(arch) +
                             ") cannot run this build: its CUDA kernels were compiled for " + architectureList(built) +
                             " only. ";
    // CUDA 13 compiles for compute capability 7.5 and newer.
    if (arch < 75) return what + "CUDA 13 no longer compiles for it: build with CUDA 12 and -DCMAKE_CUDA_ARCHITECTURES=" +
                          std::to_string(arch);
    return what + "Rebuild with cmake -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(arch) +
           " (this GPU only; =native builds for the GPUs of the build machine)";
}

std::string noDeviceReason(bool insufficientDriver, bool driverInstalled, const std::string& cudaText) {
    if (insufficientDriver && !driverInstalled)
        return "no NVIDIA driver found (the CUDA backend needs the NVIDIA driver and a CUDA GPU)";
    return "no usable CUDA device: " + cudaText;
}

std::string cudaVersionText(int version) {
    if (version <= 0) return "none";
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::vector<std::string> deviceListLines(const std::vector<GpuDescription>& gpus, const std::string& problem,
                                         int driverVersion, const std::string& moduleVersion, int runtimeVersion,
                                         const std::vector<int>& built) {
    std::vector<std::string> lines;
    const std::string runtime = "runtime " + cudaVersionText(runtimeVersion);
    std::string driver = "driver " + (moduleVersion.empty() ? std::string() : moduleVersion + " ") + "(CUDA " +
                         cudaVersionText(driverVersion) + ")";
    if (!problem.empty()) {
        lines.push_back(problem + "; CUDA " + runtime);
    } else {
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            const GpuDescription& g = gpus[i];
            char memory[32];
            std::snprintf(memory, sizeof memory, "%.1f GiB", static_cast<double>(g.memoryBytes) / (1024.0 * 1024.0 * 1024.0));
            lines.push_back("GPU " + std::to_string(i) + ": " + g.name + ", compute capability " +
                            computeCapabilityText(g.arch) + ", " + memory + ", " + driver + ", " + runtime + ", " +
                            (g.runsThisBuild ? "runs this build" : "no code for it in this build"));
        }
    }
    lines.push_back("this build's CUDA kernels: " + architectureList(built));
    return lines;
}

}  // namespace fs::gpu
