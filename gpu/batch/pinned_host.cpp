#include "fs/gpu/pinned_host.hpp"

#include <cuda_runtime.h>

#include <cstring>

#include "cuda_support.hpp"
#include "engine_core.hpp"

namespace fs::gpu {

PinnedImage pinnedCopyOf(ConstImageView image) {
    PinnedImage out;
    const std::size_t rowBytes = image.rowBytes();
    PinnedAllocator pinned;
    void* data = pinned.allocate(rowBytes * static_cast<std::size_t>(image.height));
    if (!data) {
        cudaGetLastError();  // clear it: the next CUDA call must not see this failure
        out.error = cudaMessage("allocating pinned host memory", pinned.lastError);
        return out;
    }
    out.memory = std::shared_ptr<void>(data, [](void* p) { PinnedAllocator().free(p); });
    out.view = ImageView{data, image.width, image.height, image.channels, image.depth, rowBytes};
    for (int y = 0; y < image.height; ++y)
        std::memcpy(out.view.row<std::uint8_t>(y), image.row<std::uint8_t>(y), rowBytes);
    return out;
}

}  // namespace fs::gpu
