#include "cuda_library.hpp"

#include <atomic>
#include <mutex>

#include "fs/batch.hpp"
#include "fs/module_loader.hpp"
#include "fs/pipeline.hpp"
#if defined(FS_HAVE_CUDA)
#include "fs/gpu/module.hpp"
#endif

namespace fs {
namespace {

struct Loaded {
    gpu::Module* module = nullptr;
    std::string why;
};

std::atomic<bool> loaded{false};

const Loaded& load() {
    static const Loaded result = [] {
        Loaded r;
#if defined(FS_HAVE_CUDA)
        r.module = openModule<gpu::Module>(FS_CUDA_LIBRARY, FS_CUDA_MODULE_SYMBOL, "the CUDA engine", r.why);
        loaded.store(r.module != nullptr);
#else
        r.why = "this FilterStudio was built without CUDA";
#endif
        return r;
    }();
    return result;
}

#if defined(FS_HAVE_CUDA)
class LazyCudaBackend final : public Backend {
public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override { return real() ? real()->displayName() : "CUDA"; }
    std::vector<ModeInfo> modes() const override { return real() ? real()->modes() : std::vector<ModeInfo>{}; }
    std::string unavailableReason() const override {
        return real() ? real()->unavailableReason() : load().why;
    }
    std::vector<std::string> deviceDescriptions() const override {
        return real() ? real()->deviceDescriptions() : std::vector<std::string>{};
    }
    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) override {
        if (real()) return real()->run(spec, input, mode);
        RunResult r;
        r.timing.backend = id();
        r.timing.mode = mode;
        r.error = load().why;
        return r;
    }
    bool hasLaunchConfig() const override { return real() && real()->hasLaunchConfig(); }
    RunResult runWithLaunch(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                            const LaunchConfig& launch) override {
        return real() ? real()->runWithLaunch(spec, input, mode, launch) : Backend::runWithLaunch(spec, input, mode, launch);
    }
    LaunchReport describeLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode, const LaunchConfig& launch) const override {
        return real() ? real()->describeLaunch(spec, width, height, depth, channels, mode, launch)
                      : Backend::describeLaunch(spec, width, height, depth, channels, mode, launch);
    }
    Explanation explain(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                        const std::string& mode) const override {
        return real() ? real()->explain(spec, width, height, depth, channels, mode)
                      : Backend::explain(spec, width, height, depth, channels, mode);
    }
    std::string dispatchRules() const override { return real() ? real()->dispatchRules() : std::string(); }
    TuneResult tune(const FilterSpec& spec, ConstImageView input, const std::string& mode, const TuneOptions& options,
                    const TuneProgress& progress) override {
        return real() ? real()->tune(spec, input, mode, options, progress)
                      : Backend::tune(spec, input, mode, options, progress);
    }
    std::string resetTuning() override { return real() ? real()->resetTuning() : Backend::resetTuning(); }
    std::unique_ptr<BatchRunner> makeBatchRunner() override {
        return real() ? real()->makeBatchRunner() : Backend::makeBatchRunner();
    }
    std::unique_ptr<PipelineRunner> makePipelineRunner(const std::string& mode) override {
        return real() ? real()->makePipelineRunner(mode) : Backend::makePipelineRunner(mode);
    }

private:
    Backend* real() const {
        std::call_once(made_, [this] {
            if (gpu::Module* module = cudaModule()) real_ = module->makeBackend();
        });
        return real_.get();
    }
    mutable std::once_flag made_;
    mutable std::unique_ptr<Backend> real_;
};
#endif

}  // namespace

gpu::Module* cudaModule(std::string* why) {
    const Loaded& l = load();
    if (why) *why = l.why;
    return l.module;
}

bool cudaModuleLoaded() { return loaded.load(); }

#if defined(FS_HAVE_CUDA)
std::unique_ptr<Backend> makeLazyCudaBackend() { return std::make_unique<LazyCudaBackend>(); }
#endif

}  // namespace fs
