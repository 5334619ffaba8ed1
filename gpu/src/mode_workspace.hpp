#pragma once
// Internal: device work areas of the modes that need more than a kernel
// launch (fft: cuFFT plans, tile buffers, cached kernel spectra). Whoever
// launches owns them: the engine keeps one per mode and stream, frees them
// in trimCaches() (memory pressure) and counts them in cachedBytes(); the
// benchmark keeps its own. One per stream, because pipeline pieces and batch
// slots launch on several streams at once.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <memory>
#include <utility>

namespace fs::gpu {

class ModeWorkspace {
public:
    virtual ~ModeWorkspace() = default;
    virtual std::size_t bytes() const = 0;
};

class ModeWorkspaces {
public:
    // The work area of `owner` (a mode's identity) on `stream`, made on first use.
    template <class W> W& get(const void* owner, cudaStream_t stream) {
        std::unique_ptr<ModeWorkspace>& slot = areas_[{owner, stream}];
        if (!slot) slot = std::make_unique<W>();
        return static_cast<W&>(*slot);
    }
    // Frees every work area; the caller has waited for their streams.
    void releaseAll() { areas_.clear(); }
    std::size_t bytes() const {
        std::size_t total = 0;
        for (const auto& [key, area] : areas_) total += area->bytes();
        return total;
    }

private:
    std::map<std::pair<const void*, cudaStream_t>, std::unique_ptr<ModeWorkspace>> areas_;
};

}  // namespace fs::gpu
