#include "fs/gpu/module.hpp"

#include "fs/gpu/cuda_backend.hpp"
#include "fs/gpu/cuda_options.hpp"
#include "fs/gpu/layer.hpp"
#if defined(FS_CUDA_HAS_GL_INTEROP)
#include "fs/gpu/gl_interop.hpp"
#endif

namespace fs::gpu {
namespace {

class LibraryModule final : public Module {
public:
    std::unique_ptr<Backend> makeBackend() override { return makeCudaBackend(); }
    std::unique_ptr<LayerRunner> makeLayerRunner() override { return makeCudaLayerRunner(); }

    std::string unavailableReason() override { return Engine::instance().unavailableReason(); }
    DeviceImageHandle upload(ConstImageView image, std::string& error, TimingRecord* timing) override {
        return Engine::instance().upload(image, error, timing);
    }
    std::string run(const FilterSpec& spec, DeviceImageHandle image, const std::string& mode, const RunTarget& target,
                    TimingRecord& timing, const LaunchConfig& launch) override {
        return Engine::instance().run(spec, image, mode, target, timing, launch);
    }
    std::string run(const FilterSpec& spec, const DeviceInput& input, const std::string& mode, const RunTarget& target,
                    TimingRecord& timing, const LaunchConfig& launch) override {
        return Engine::instance().run(spec, input, mode, target, timing, launch);
    }
    bool release(DeviceImageHandle image) override { return Engine::instance().release(image); }
    void trimCaches() override { Engine::instance().trimCaches(); }
    void setDeviceMemoryBudget(std::size_t bytes) override { gpu::setDeviceMemoryBudget(bytes); }
    void setPipelineRows(int rows) override { gpu::setPipelineRows(rows); }
    PinnedImage pinnedCopyOf(ConstImageView image) override { return gpu::pinnedCopyOf(image); }

#if defined(FS_CUDA_HAS_GL_INTEROP)
    std::string interopBackendId() override { return GlPixelBufferInterop::backendId(); }
    std::string interopUnavailableReason() override { return GlPixelBufferInterop::unavailableReason(); }
    std::unique_ptr<PixelBufferFill> makePixelBufferFill() override { return std::make_unique<GlPixelBufferInterop>(); }
#else
    std::string interopBackendId() override { return {}; }
    std::string interopUnavailableReason() override { return "this build has no CUDA-GL interop"; }
    std::unique_ptr<PixelBufferFill> makePixelBufferFill() override { return nullptr; }
#endif
};

}  // namespace
}  // namespace fs::gpu

extern "C" __attribute__((visibility("default"))) fs::gpu::Module* fs_cuda_module_v1() {
    static fs::gpu::LibraryModule module;
    return &module;
}
