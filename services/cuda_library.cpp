#include "cuda_library.hpp"

#include <mutex>
#include <utility>

#include "fs/batch.hpp"
#include "fs/module_loader.hpp"
#include "fs/pipeline.hpp"
#if defined(FS_HAVE_CUDA)
#include "fs/gpu/module.hpp"
#endif

namespace fs {
namespace {

LazyModule<gpu::Module>& engineLibrary() {
#if defined(FS_HAVE_CUDA)
    static LazyModule<gpu::Module> library(FS_CUDA_LIBRARY, FS_CUDA_MODULE_SYMBOL, "the CUDA engine");
#else
    static LazyModule<gpu::Module> library("this FilterStudio was built without CUDA");
#endif
    return library;
}

#if defined(FS_HAVE_CUDA)
// The backend "cuda" where the engine cannot be opened: no modes, and every
// run refused with the reason.
class UnloadedCudaBackend final : public Backend {
public:
    explicit UnloadedCudaBackend(std::string why) : why_(std::move(why)) {}
    std::string id() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
    std::vector<ModeInfo> modes() const override { return {}; }
    std::string unavailableReason() const override { return why_; }
    RunResult run(const FilterSpec&, ConstImageView, const std::string& mode) override {
        RunResult r;
        r.timing.backend = id();
        r.timing.mode = mode;
        r.error = why_;
        return r;
    }

private:
    std::string why_;
};

// Answers id() itself; everything else goes to the engine's backend, made
// by the first such call, or to UnloadedCudaBackend.
class LazyCudaBackend final : public Backend {
public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override { return real().displayName(); }
    std::vector<ModeInfo> modes() const override { return real().modes(); }
    std::string unavailableReason() const override { return real().unavailableReason(); }
    std::vector<std::string> deviceDescriptions() const override { return real().deviceDescriptions(); }
    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) override {
        return real().run(spec, input, mode);
    }
    bool hasLaunchConfig() const override { return real().hasLaunchConfig(); }
    RunResult runWithLaunch(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                            const LaunchConfig& launch) override {
        return real().runWithLaunch(spec, input, mode, launch);
    }
    LaunchReport describeLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode, const LaunchConfig& launch) const override {
        return real().describeLaunch(spec, width, height, depth, channels, mode, launch);
    }
    Explanation explain(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                        const std::string& mode) const override {
        return real().explain(spec, width, height, depth, channels, mode);
    }
    std::string dispatchRules() const override { return real().dispatchRules(); }
    TuneResult tune(const FilterSpec& spec, ConstImageView input, const std::string& mode, const TuneOptions& options,
                    const TuneProgress& progress) override {
        return real().tune(spec, input, mode, options, progress);
    }
    std::string resetTuning() override { return real().resetTuning(); }
    std::unique_ptr<BatchRunner> makeBatchRunner() override { return real().makeBatchRunner(); }
    std::unique_ptr<PipelineRunner> makePipelineRunner(const std::string& mode) override {
        return real().makePipelineRunner(mode);
    }

private:
    Backend& real() const {
        std::call_once(made_, [this] {
            std::string why;
            gpu::Module* module = cudaModule(&why);
            real_ = module ? module->makeBackend() : std::make_unique<UnloadedCudaBackend>(why);
        });
        return *real_;
    }
    mutable std::once_flag made_;
    mutable std::unique_ptr<Backend> real_;
};
#endif

}  // namespace

gpu::Module* cudaModule(std::string* why) { return engineLibrary().get(why); }

bool cudaModuleLoaded() { return engineLibrary().opened(); }

#if defined(FS_HAVE_CUDA)
std::unique_ptr<Backend> makeLazyCudaBackend() { return std::make_unique<LazyCudaBackend>(); }
#endif

}  // namespace fs
