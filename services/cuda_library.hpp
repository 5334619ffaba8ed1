#pragma once
// The CUDA engine (libfs_cuda.so, kernels for every architecture built) is
// opened with dlopen the first time a CUDA backend, device image or the live
// preview is asked for, never at start-up: CPU work neither pays for mapping
// it nor needs the address space it takes.
#include <memory>
#include <string>

#include "fs/backend.hpp"

namespace fs::gpu {
class Module;
}

namespace fs {

// The loaded engine, or nullptr with `why` set: a build without CUDA, or a
// library that could not be opened (dlerror's words). Opened once per
// process; later calls return the same answer.
gpu::Module* cudaModule(std::string* why = nullptr);

// Whether this process has opened the engine yet; never opens it.
bool cudaModuleLoaded();

// The backend "cuda" without opening the engine: id() answers at once, and
// the first other call opens it. Where it cannot be opened, the backend lists
// no modes and is unavailable with the reason. CUDA builds only.
std::unique_ptr<Backend> makeLazyCudaBackend();

}  // namespace fs
