// fs::gpu::runToDevice: the engine's run with device memory as its target.
#include "fs/gpu/device_run.hpp"

#include <exception>

#include "fs/gpu/engine.hpp"

namespace fs::gpu {

std::string runToDevice(const FilterSpec& spec, ConstImageView input, const std::string& mode, DeviceOutput output,
                        TimingRecord* timing, const LaunchConfig& launch) {
    try {
        TimingRecord local;
        return Engine::instance().run(spec, input, mode, RunTarget::deviceMemory(output), timing ? *timing : local,
                                      launch);
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace fs::gpu
