#include "transfer_knobs.hpp"

#include <climits>

#include "cuda_library.hpp"
#if defined(FS_HAVE_CUDA)
#include "fs/gpu/module.hpp"
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
    // An engine not yet loaded starts with the defaults: CPU work never loads it for them.
    if (knobs.isDefault() && !cudaModuleLoaded()) return {};
#if defined(FS_HAVE_CUDA)
    std::string why;
    gpu::Module* cuda = cudaModule(&why);
    if (!cuda) return "pinned memory, serial transfers and a device-memory budget are CUDA knobs; " + why;
    cuda->setDeviceMemoryBudget(knobs.deviceBudgetBytes);
    cuda->setPipelineRows(knobs.transfers == Transfers::Serial ? INT_MAX : 0);  // one piece: nothing to overlap
    return {};
#else
    return "pinned memory, serial transfers and a device-memory budget are CUDA knobs; this FilterStudio was built "
           "without CUDA";
#endif
}

HostInput hostInputFor(ConstImageView image, HostMemory host) {
    HostInput in;
    in.view = image;
    if (host == HostMemory::Pageable) return in;
#if defined(FS_HAVE_CUDA)
    std::string why;
    gpu::Module* cuda = cudaModule(&why);
    // Said before the allocation, which would fail in the runtime's own words.
    if (cuda) why = cuda->unavailableReason();
    if (!why.empty()) {
        in.error = "pinned host memory needs a CUDA device; no usable CUDA device here: " + why;
        return in;
    }
    gpu::PinnedImage pinned = cuda->pinnedCopyOf(image);
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
    gpu::Module* cuda = cudaModule(&error_);
    if (!cuda) return;
    const gpu::DeviceImageHandle handle = cuda->upload(image, error_, &upload);
    handle_ = handle.id;
    uploadMs_ = upload.uploadMs.value_or(0.0);
    if (!handle && error_.empty()) error_ = "the image could not be kept on the device";
#else
    error_ = "keeping an image on the GPU needs the CUDA build";
#endif
}

ResidentImage::~ResidentImage() {
#if defined(FS_HAVE_CUDA)
    if (handle_) cudaModule()->release(gpu::DeviceImageHandle{handle_});
#else
    (void)handle_;
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
    r.error = cudaModule()->run(whole, gpu::DeviceImageHandle{handle_}, mode,
                                gpu::RunTarget::hostImage(r.output.view()), r.timing, launch);
    if (!r.ok()) r.output = Image();
#else
    (void)spec, (void)launch;  // error_ is always set without CUDA
#endif
    return r;
}

}  // namespace fs
