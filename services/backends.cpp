#include "backends.hpp"

#include "fs/cpu/cpu_backend.hpp"
#if defined(FS_HAVE_OPENCV)
#include "fs/cpu/opencv_backend.hpp"
#endif
#if defined(FS_HAVE_CUDA)
#include "fs/gpu/cuda_backend.hpp"
#endif
#if defined(FS_HAVE_OPENCL)
#include "fs/ocl/opencl_backend.hpp"
#endif

namespace fs {

std::vector<std::unique_ptr<Backend>> makeAllBackends() {
    std::vector<std::unique_ptr<Backend>> backends;
#if defined(FS_HAVE_OPENCV)
    backends.push_back(cpu::makeCpuBackendWithOpenCV());
#else
    backends.push_back(cpu::makeCpuBackend());
#endif
#if defined(FS_HAVE_CUDA)
    backends.push_back(gpu::makeCudaBackend());
#endif
#if defined(FS_HAVE_OPENCL)
    backends.push_back(opencl::makeOpenClBackend());
    backends.push_back(opencl::makeOpenClCpuBackend());
#endif
    return backends;
}

Backend* findBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id) {
    for (const auto& b : backends)
        if (b->id() == id) return b.get();
    return nullptr;
}

}  // namespace fs
