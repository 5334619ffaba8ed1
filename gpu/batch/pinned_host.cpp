#include "fs/gpu/pinned_host.hpp"

#include <cuda_runtime.h>

#include <cstring>

#include "cuda_support.hpp"

namespace fs::gpu {

PinnedImage pinnedCopyOf(ConstImageView image) {
    PinnedImage out;
    const std::size_t rowBytes = image.rowBytes();
    void* data = nullptr;
    if (cudaError_t err = cudaMallocHost(&data, rowBytes * static_cast<std::size_t>(image.height)); err != cudaSuccess) {
        cudaGetLastError();  // clear it: the next CUDA call must not see this failure
        out.error = cudaMessage("allocating pinned host memory", err);
        return out;
    }
    out.memory = std::shared_ptr<void>(data, [](void* p) { cudaFreeHost(p); });
    out.view = ImageView{data, image.width, image.height, image.channels, image.depth, rowBytes};
    for (int y = 0; y < image.height; ++y)
        std::memcpy(out.view.row<std::uint8_t>(y), image.row<std::uint8_t>(y), rowBytes);
    return out;
}

}  // namespace fs::gpu
