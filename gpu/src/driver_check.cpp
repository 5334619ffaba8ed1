#include "driver_check.hpp"

#include <dlfcn.h>
#include <unistd.h>

namespace fs::gpu {

bool nvidiaDriverInstalled(const std::string& moduleVersionFile, const std::string& driverLibrary) {
    if (::access(moduleVersionFile.c_str(), F_OK) == 0) return true;
    void* library = ::dlopen(driverLibrary.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!library) return false;
    ::dlclose(library);
    return true;
}

std::string noDeviceReason(bool insufficientDriver, bool driverInstalled, const std::string& cudaText) {
    if (insufficientDriver && !driverInstalled)
        return "no NVIDIA driver found (the CUDA backend needs the NVIDIA driver and a CUDA GPU)";
    return "no usable CUDA device: " + cudaText;
}

}  // namespace fs::gpu
