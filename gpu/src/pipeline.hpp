#pragma once
// Internal: runs a FilterSpec from host memory through the device, in pieces
// with halos (pipelined upload / kernel / download on three streams, or
// strips when the image exceeds the device memory budget).
#include <string>

#include "fs/backend.hpp"
#include "fs/gpu/device_run.hpp"

namespace fs::gpu {

// Where the result goes: a host image (downloaded) or device memory.
struct PipelineTarget {
    ImageView host;
    DeviceOutput device;
    bool toDevice = false;
};

// Empty on success; fills the timing's upload/kernel/download/hostPrep/total.
// Input or host output already in pinned memory is transferred directly.
std::string runPipeline(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                        const PipelineTarget& target, TimingRecord& timing);

// Empty when a CUDA device can be used, else why not.
std::string cudaUnavailableReason();
std::string cudaDeviceName();

}  // namespace fs::gpu
