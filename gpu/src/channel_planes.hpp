#pragma once
// Internal: the planar channel layout (fs::ChannelLayout::Planar) for every
// mode. An interleaved piece (RGBRGB...) is split into one plane per channel,
// the mode filters each plane as a one-channel image, and the results are
// interleaved again. The split and the merge are timed apart from the
// filtering, so the access-pattern lesson and its price show separately.
#include <cuda_runtime.h>

#include "launch.hpp"

namespace fs::gpu {

// Runs `mode` on each of `channels` planes of `args.geom`'s interleaved
// rows; args.filter is the one-channel filter (prepareFilter with 1 channel)
// and args.config a configuration the mode accepted for it. `split` is
// recorded after the split and `filtered` after the last plane, when given.
// The planes live in a work area of args.workspaces.
cudaError_t launchOnPlanes(const ModeImpl& mode, const LaunchArgs& args, int channels, cudaStream_t stream,
                           cudaEvent_t split = nullptr, cudaEvent_t filtered = nullptr);

}  // namespace fs::gpu
