#include "transfer_knobs.hpp"

#include <climits>

#if defined(FS_HAVE_CUDA)
#include "fs/gpu/cuda_options.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/gpu/pinned_host.hpp"
#endif

namespace fs {

const char* hostMemoryName(HostMemory h) { return h == HostMemory::Pinned ? "pinned" : "pageable"; }
const char* transfersName(Transfers t) {
    switch (t) {
    case Transfers::Serial: return "serial";
    case Transfers::Resident: return "resident";
    case Transfers::Overlapped: break;
    }
    return "overlapped";
}

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

ResidentImage::ResidentImage(ConstImageView image) : image_(image) {
#if defined(FS_HAVE_CUDA)
    TimingRecord upload;
    const gpu::DeviceImageHandle handle = gpu::Engine::instance().upload(image, error_, &upload);
    handle_ = handle.id;
    uploadMs_ = upload.uploadMs.value_or(0.0);
    if (!handle && error_.empty()) error_ = "the image could not be kept on the device";
#else
    error_ = "keeping an image on the GPU needs the CUDA build";
#endif
}

ResidentImage::~ResidentImage() {
#if defined(FS_HAVE_CUDA)
    if (handle_) gpu::Engine::instance().release(gpu::DeviceImageHandle{handle_});
#endif
}

RunResult ResidentImage::run(const FilterSpec& spec, const std::string& mode, const LaunchConfig& launch) {
    RunResult r;
    r.timing.backend = "cuda";
    r.timing.mode = mode;
    if (!error_.empty()) {
        r.error = error_;
        return r;
    }
#if defined(FS_HAVE_CUDA)
    FilterSpec whole = spec;
    whole.outputSize = OutputSize::Same;
    r.output = Image(image_.width, image_.height, image_.channels, whole.outputDepth(image_.depth));
    r.error = gpu::Engine::instance().run(whole, gpu::DeviceImageHandle{handle_}, mode,
                                          gpu::RunTarget::hostImage(r.output.view()), r.timing, launch);
    if (!r.ok()) r.output = Image();
#endif
    return r;
}

}  // namespace fs
