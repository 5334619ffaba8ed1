#pragma once
// Internal: launch reports, the autotuner and its cache for the CUDA backend.
#include <string>

#include "fs/backend.hpp"
#include "launch.hpp"

namespace fs::gpu {

// A run request resolved for one image shape.
struct ResolvedLaunch {
    PreparedFilter filter;  // for one channel when planes > 1
    int planes = 1;          // > 1: the planar channel layout, the mode runs on each plane (channel_planes.hpp)
    const ModeImpl* mode = nullptr;  // a choosing mode resolved; set once the id is known
    bool tunedByDefault = false;     // the requested mode chooses per filter: a default launch takes the tuned one
    LaunchConfig config;             // as requested, or the tuned one; set once the mode supports the filter
    LaunchPlan plan;                 // its config says the layout too (reports and timings)
    std::string reason;  // why it cannot launch, without the "mode m, <config>: " prefix
};

// prepareFilter -> the registered mode (a choosing one resolved) -> supports:
// ok() when the mode can run the filter, else InvalidFilter (prepareFilter's
// message), UnknownMode ("unknown CUDA mode 'x'") or FilterUnsupported
// ("mode m: why"). The first half of resolveLaunch, for callers that
// launch the mode's default configuration (the batch runner). The image's
// size is part of "auto"'s choice.
Refusal resolveMode(const FilterSpec& spec, Depth depth, int channels, int width, int height,
                    const std::string& modeId, ResolvedLaunch& out);

// resolveMode -> the configuration
// (for a choosing mode with a default `launch`, tunedConfig's) -> plan. ok()
// when it can launch, else why, worded alike for runs, launch reports and the
// tuner: resolveMode's refusals or "mode m, <config>: why" with the
// planner's reason (configuration refused, device limit).
// Safe under the engine's device lock (tunedConfig never takes it).
Refusal resolveLaunch(const FilterSpec& spec, Depth depth, int channels, const std::string& modeId,
                      const LaunchConfig& launch, int width, int height, ResolvedLaunch& out);

// The resolved run's launch over `args` (its filter and configuration are
// set from `r`): the mode's own, or on planes when r.planes > 1, recording
// `split` and `filtered` around the planes' filtering when given.
cudaError_t launchResolved(const ResolvedLaunch& r, LaunchArgs args, cudaStream_t stream, cudaEvent_t split = nullptr,
                           cudaEvent_t filtered = nullptr);

// What `mode` would launch for this image shape (a choosing mode resolved, its tuned
// configuration applied when `launch` is default).
LaunchReport describeCudaLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode, const LaunchConfig& launch);

// Which mode and kernel `mode` runs for this filter and image shape, and the
// dispatch rule that chose it; planned on the host, so no device is needed.
Explanation explainCuda(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                        const std::string& mode);

// Times every candidate configuration of `mode` on `input` (uploaded once),
// median of options.repeats launches each, and stores the fastest in the cache.
TuneResult tuneCudaMode(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                        const TuneOptions& options, const TuneProgress& progress);

// The cached best configuration for (device, mode, filter, image size), or
// the default one when none is cached or the cached one no longer plans.
LaunchConfig tunedConfig(const ModeImpl& mode, const PreparedFilter& f, int width, int height);

std::string resetCudaTuning();

}  // namespace fs::gpu
