#pragma once
// Plain C++: the UI and CLI include this, never a CUDA header.
#include <memory>

#include "fs/backend.hpp"

namespace fs::gpu {

// Backend "cuda". Always constructible: with no device or driver it reports
// unavailableReason() and every run() returns an error.
std::unique_ptr<Backend> makeCudaBackend();

}  // namespace fs::gpu
