#pragma once
// Plain C++ (no CUDA header): the CUDA engine as the programs see it that
// open libfs_cuda.so with dlopen on first use (services/cuda_library.hpp), so
// that CPU work never maps the kernels of every architecture. Every call is
// virtual: the programs link no symbol of the library, only this interface
// returned by the one exported function below.
#include <cstddef>
#include <memory>
#include <string>

#include "fs/backend.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/gpu/pinned_host.hpp"
#include "fs/layer.hpp"

namespace fs::gpu {

// CUDA-GL interop for the studio's live preview: filters into a mapped
// OpenGL pixel buffer (gl_interop.hpp says how each call behaves).
class PixelBufferFill {
public:
    virtual ~PixelBufferFill() = default;
    virtual std::string runIntoPixelBuffer(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                           ConstImageView input, const std::string& mode, TimingRecord* timing) = 0;
    virtual std::string runIntoPixelBuffer(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                           DeviceImageHandle image, const std::string& mode, TimingRecord* timing,
                                           const LaunchConfig& launch = {}) = 0;
    virtual void forget(unsigned glBuffer) = 0;
    virtual void copyIntoTexture(unsigned glTexture) = 0;
    virtual std::string pinInput(ConstImageView input) = 0;
    virtual void unpinInput() = 0;
    virtual const void* pinnedInput() const = 0;
};

class Module {
public:
    // The backend "cuda" (cuda_backend.hpp) and its layer runner (layer.hpp).
    virtual std::unique_ptr<Backend> makeBackend() = 0;
    virtual std::unique_ptr<LayerRunner> makeLayerRunner() = 0;

    // Engine (engine.hpp), cuda_options.hpp and pinned_host.hpp, as those headers describe them.
    virtual std::string unavailableReason() = 0;
    virtual DeviceImageHandle upload(ConstImageView image, std::string& error, TimingRecord* timing) = 0;
    virtual std::string run(const FilterSpec& spec, DeviceImageHandle image, const std::string& mode,
                            const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch) = 0;
    virtual std::string run(const FilterSpec& spec, const DeviceInput& input, const std::string& mode,
                            const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch) = 0;
    virtual bool release(DeviceImageHandle image) = 0;
    virtual void trimCaches() = 0;
    virtual void setDeviceMemoryBudget(std::size_t bytes) = 0;
    virtual void setPipelineRows(int rows) = 0;
    virtual PinnedImage pinnedCopyOf(ConstImageView image) = 0;

    // CUDA-GL interop, where this library was built with it (gl_interop.hpp):
    // the backend id its frames are timed under, why it cannot run (empty
    // when it can), and a fill bound to the caller's GL context; nullptr
    // without interop.
    virtual std::string interopBackendId() = 0;
    virtual std::string interopUnavailableReason() = 0;
    virtual std::unique_ptr<PixelBufferFill> makePixelBufferFill() = 0;

protected:
    ~Module() = default;
};

}  // namespace fs::gpu

// The one symbol the loader looks up. The version in its name changes with
// Module's layout, so a program never calls into a library of another build.
#define FS_CUDA_MODULE_SYMBOL "fs_cuda_module_v1"
extern "C" fs::gpu::Module* fs_cuda_module_v1();
