// fs::gpu::runToDevice: the pipeline with the device buffer as its target.
#include "fs/gpu/device_run.hpp"

#include <exception>

#include "pipeline.hpp"

namespace fs::gpu {

std::string runToDevice(const FilterSpec& spec, ConstImageView input, const std::string& mode, DeviceOutput output,
                        TimingRecord* timing, const LaunchConfig& launch) {
    try {
        TimingRecord local;
        PipelineTarget target;
        target.device = output;
        target.toDevice = true;
        std::string error = runPipeline(spec, input, mode, target, timing ? *timing : local, launch);
        return error;
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace fs::gpu
