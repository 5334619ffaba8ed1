#pragma once
// Internal: the short names the benchmark and the tests use for the engine's
// run of a host image (fs::gpu::Engine::run).
#include <string>

#include "engine_core.hpp"

namespace fs::gpu {

using PipelineTarget = RunTarget;

inline std::string runPipeline(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                               const PipelineTarget& target, TimingRecord& timing, const LaunchConfig& launch = {}) {
    return Engine::instance().run(spec, input, mode, target, timing, launch);
}

inline std::string cudaUnavailableReason() { return Engine::instance().unavailableReason(); }
inline std::string cudaDeviceName() { return Engine::instance().deviceName(); }

}  // namespace fs::gpu
