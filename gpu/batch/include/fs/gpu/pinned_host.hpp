#pragma once
// Plain C++ (no CUDA header): host images in page-locked memory, for the
// lesson on pageable vs pinned transfers. The engine copies a pinned input
// straight to the device; a pageable one goes through its pinned staging first.
#include <memory>
#include <string>

#include "fs/image.hpp"

namespace fs::gpu {

struct PinnedImage {
    std::shared_ptr<void> memory;  // freed by the engine's pinned allocator when the last copy goes
    ImageView view;                // tightly packed, inside `memory`
    std::string error;             // non-empty: no pinned memory (no device, or the driver refused)
    bool ok() const { return error.empty(); }
};

// A copy of `image` in page-locked host memory.
PinnedImage pinnedCopyOf(ConstImageView image);

}  // namespace fs::gpu
