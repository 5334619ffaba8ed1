#include "transfer_knobs.hpp"

#include <climits>

#if defined(FS_HAVE_CUDA)
#include "fs/gpu/cuda_options.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/gpu/pinned_host.hpp"
#endif

namespace fs {

const char* hostMemoryName(HostMemory h) { return h == HostMemory::Pinned ? "pinned" : "pageable"; }
const char* transfersName(Transfers t) { return t == Transfers::Serial ? "serial" : "overlapped"; }

std::string applyTransferKnobs(const TransferKnobs& knobs) {
#if defined(FS_HAVE_CUDA)
    gpu::setDeviceMemoryBudget(knobs.deviceBudgetBytes);
    gpu::setPipelineRows(knobs.transfers == Transfers::Serial ? INT_MAX : 0);  // one piece: nothing to overlap
    return {};
#else
    if (knobs.isDefault()) return {};
    return "pinned memory, serial transfers and a device-memory budget are CUDA knobs; this FilterStudio was built "
           "without CUDA";
#endif
}

HostInput hostInputFor(ConstImageView image, HostMemory host) {
    HostInput in;
    in.view = image;
    if (host == HostMemory::Pageable) return in;
#if defined(FS_HAVE_CUDA)
    // Said before the allocation, which would fail in the runtime's own words.
    if (const std::string why = gpu::Engine::instance().unavailableReason(); !why.empty()) {
        in.error = "pinned host memory needs a CUDA device; no usable CUDA device here: " + why;
        return in;
    }
    gpu::PinnedImage pinned = gpu::pinnedCopyOf(image);
    if (!pinned.ok()) {
        in.error = pinned.error;
        return in;
    }
    in.view = pinned.view;
    in.memory = std::move(pinned.memory);
#else
    in.error = "pinned host memory needs the CUDA build";
#endif
    return in;
}

}  // namespace fs
