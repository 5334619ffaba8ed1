// Backend "cuda": the Backend interface over fs::gpu::Engine and the mode registry.
#include "fs/gpu/cuda_backend.hpp"

#include <new>

#include "device_list.hpp"
#include "dispatch.hpp"
#include "fs/gpu/engine.hpp"
#include "launch.hpp"
#include "tuning.hpp"
#if defined(FS_HAVE_CUDA_BATCH)
#include "fs/gpu/batch.hpp"
#endif

namespace fs::gpu {
namespace {

class CudaBackend final : public Backend {
public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override {
        const std::string name = Engine::instance().deviceName();
        return name.empty() ? "CUDA (no device)" : "CUDA (" + name + ")";
    }
    std::vector<ModeInfo> modes() const override {
        const std::string reason = unavailableReason();
        std::vector<ModeInfo> out;
        for (const ModeImpl* m : registeredModes()) {
            const std::string why = !reason.empty() || !m->deviceProblem ? reason : m->deviceProblem();
            out.push_back({m->id, m->description, why.empty(), why, /*isReference=*/false, m->isDefault,
                           m->approximate});
        }
        return out;
    }
    std::string unavailableReason() const override { return Engine::instance().unavailableReason(); }
    std::vector<std::string> deviceDescriptions() const override { return describeCudaDevices(); }

    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) override {
        return runWithLaunch(spec, input, mode, LaunchConfig{});
    }

    bool hasLaunchConfig() const override { return true; }

    RunResult runWithLaunch(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                            const LaunchConfig& launch) override {
        RunResult result;
        result.timing.backend = id();
        result.timing.mode = mode;
        result.error = validateRun(spec, input);
        if (!result.error.empty()) return result;
        try {
            Image output(input.width, input.height, input.channels, spec.outputDepth(input.depth));
            result.error = Engine::instance().run(spec, input, mode, RunTarget::hostImage(output.view()), result.timing,
                                                  launch);
            if (result.error.empty()) result.output = std::move(output);
        } catch (const std::bad_alloc&) {
            result.error = "out of host memory for the output image";
        } catch (const std::exception& e) {
            result.error = e.what();
        }
        return result;
    }

    LaunchReport describeLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode, const LaunchConfig& launch) const override {
        return describeCudaLaunch(spec, width, height, depth, channels, mode, launch);
    }

    std::string dispatchRules() const override { return dispatchTableMarkdown(); }

    Explanation explain(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                        const std::string& mode) const override {
        try {
            return explainCuda(spec, width, height, depth, channels, mode);
        } catch (const std::exception& e) {
            Explanation out;
            out.error = e.what();
            return out;
        }
    }

    TuneResult tune(const FilterSpec& spec, ConstImageView input, const std::string& mode, const TuneOptions& options,
                    const TuneProgress& progress) override {
        try {
            return tuneCudaMode(spec, input, mode, options, progress);
        } catch (const std::exception& e) {
            TuneResult result;
            result.mode = mode;
            result.error = e.what();
            return result;
        }
    }

    std::string resetTuning() override { return resetCudaTuning(); }

#if defined(FS_HAVE_CUDA_BATCH)
    std::unique_ptr<BatchRunner> makeBatchRunner() override { return makeCudaBatchRunner(*this); }
    std::unique_ptr<PipelineRunner> makePipelineRunner(const std::string& mode) override {
        return makeCudaPipelineRunner(mode);
    }
#endif
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend() { return std::make_unique<CudaBackend>(); }

}  // namespace fs::gpu
