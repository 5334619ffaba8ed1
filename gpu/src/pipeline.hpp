#pragma once
// Internal: runs a FilterSpec from host memory through the device, in pieces
// with halos (pipelined upload / kernel / download on three streams, or
// strips when the image exceeds the device memory budget).
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
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
// `launch` is checked against the mode first (refused with the reason); the
// "auto" mode with a default launch uses the tuning cache's best entry.
std::string runPipeline(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                        const PipelineTarget& target, TimingRecord& timing, const LaunchConfig& launch = {});

// Pieces an image of `imageBytes` input bytes goes in when setPipelineRows is
// 0, before the memory budget asks for more (1: the whole image at once).
int automaticPieceCount(std::size_t imageBytes);

// Runs `work` on the pipeline's first stream while holding the device, so no
// filter run changes the modes' constant memory meanwhile (the tuner uses it).
// Returns why the device is unusable, else what `work` returns.
std::string withDevice(const std::function<std::string(cudaStream_t)>& work);

// Empty when a CUDA device can be used, else why not.
std::string cudaUnavailableReason();
std::string cudaDeviceName();

}  // namespace fs::gpu
