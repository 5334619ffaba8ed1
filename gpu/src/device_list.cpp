#include "device_list.hpp"

#include "driver_check.hpp"
#include "engine_core.hpp"

namespace fs::gpu {

std::string deviceCountProblem(cudaError_t err) {
    if (err == cudaErrorNoDevice) return "no CUDA device found";
    const bool insufficient = err == cudaErrorInsufficientDriver;
    return noDeviceReason(insufficient, insufficient && nvidiaDriverInstalled(),
                          std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")");
}

std::vector<std::string> describeCudaDevices() {
    int runtime = 0, driver = 0, count = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);  // 0 without a driver
    std::string problem;
    std::vector<GpuDescription> gpus;
    if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
        cudaGetLastError();
        problem = deviceCountProblem(err);
    } else if (count == 0) {
        problem = "no CUDA device found";
    }
    int current = 0;
    if (problem.empty()) cudaGetDevice(&current);
    for (int i = 0; problem.empty() && i < count; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        GpuDescription g;
        g.name = p.name;
        g.arch = p.major * 10 + p.minor;
        g.memoryBytes = p.totalGlobalMem;
        // Asking for a kernel's attributes loads this build's code for the
        // device (or finds none) without launching anything.
        g.runsThisBuild = cudaSetDevice(i) == cudaSuccess && probeKernelImage() == cudaSuccess;
        cudaGetLastError();
        gpus.push_back(g);
    }
    if (problem.empty()) cudaSetDevice(current);
    return deviceListLines(gpus, problem, driver, nvidiaModuleVersion(), runtime, builtArchitectures());
}

}  // namespace fs::gpu
