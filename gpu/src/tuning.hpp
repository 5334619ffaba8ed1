#pragma once
// Internal: launch reports, the autotuner and its cache for the CUDA backend.
#include <string>

#include "fs/backend.hpp"
#include "launch.hpp"

namespace fs::gpu {

// What `mode` would launch for this image shape ("auto" resolved, its tuned
// configuration applied when `launch` is default).
LaunchReport describeCudaLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode, const LaunchConfig& launch);

// Times every candidate configuration of `mode` on `input` (uploaded once),
// median of options.repeats launches each, and stores the fastest in the cache.
TuneResult tuneCudaMode(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                        const TuneOptions& options, const TuneProgress& progress);

// The cached best configuration for (device, mode, filter, image size), or
// the default one when none is cached or the cached one no longer plans.
LaunchConfig tunedConfig(const ModeImpl& mode, const PreparedFilter& f, int width, int height);

std::string resetCudaTuning();

}  // namespace fs::gpu
