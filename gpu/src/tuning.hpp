#pragma once
// Internal: launch reports, the autotuner and its cache for the CUDA backend.
#include <string>

#include "fs/backend.hpp"
#include "launch.hpp"

namespace fs::gpu {

// A run request resolved for one image shape.
struct ResolvedLaunch {
    PreparedFilter filter;
    const ModeImpl* mode = nullptr;  // "auto" resolved; set once the id is known
    LaunchConfig config;             // as requested, or the tuned one; set once the mode supports the filter
    LaunchPlan plan;
    std::string reason;  // why it cannot launch, without the "mode m, <config>: " prefix
};

// prepareFilter -> the mode ("auto" resolved) -> supports: empty when the
// mode can run the filter, else prepareFilter's message, "unknown CUDA mode
// 'x'" or "mode m: why". The first half of resolveLaunch, for callers that
// launch the mode's default configuration (the batch runner).
std::string resolveMode(const FilterSpec& spec, Depth depth, int channels, const std::string& modeId,
                        ResolvedLaunch& out);

// resolveMode -> the configuration
// (for "auto" with a default `launch`, tunedConfig's) -> plan. Empty when it
// can launch, else why, worded alike for runs, launch reports and the tuner:
// prepareFilter's message, "unknown CUDA mode 'x'", "mode m: why" (filter
// not supported) or "mode m, <config>: why" (configuration refused).
// Safe under the pipeline's device lock (tunedConfig never takes it).
std::string resolveLaunch(const FilterSpec& spec, Depth depth, int channels, const std::string& modeId,
                          const LaunchConfig& launch, int width, int height, ResolvedLaunch& out);

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
