// Backend "cuda": the Backend interface over the pipeline and the modes.
#include "fs/gpu/cuda_backend.hpp"

#include <new>

#include "launch.hpp"
#include "pipeline.hpp"
#include "tuning.hpp"

namespace fs::gpu {
namespace {

const char* autoDescription =
    "Picks the fastest correct mode for the filter: registers for kernels up to 7x7, separable for larger "
    "rank-1 kernels, otherwise shared; with the launch configuration the autotuner found for this GPU, filter "
    "and image size, when there is one.";

class CudaBackend final : public Backend {
public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override {
        const std::string name = cudaDeviceName();
        return name.empty() ? "CUDA (no device)" : "CUDA (" + name + ")";
    }
    std::vector<ModeInfo> modes() const override {
        const std::string reason = unavailableReason();
        std::vector<ModeInfo> out;
        for (const ModeImpl* m :
             {&globalMode(), &constantMode(), &sharedMode(), &textureMode(), &separableMode(), &registersMode()})
            out.push_back({m->id, m->description, reason.empty(), reason});
        out.push_back({"auto", autoDescription, reason.empty(), reason, /*isReference=*/false, /*isDefault=*/true});
        return out;
    }
    std::string unavailableReason() const override { return cudaUnavailableReason(); }

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
            PipelineTarget target;
            target.host = output.view();
            result.error = runPipeline(spec, input, mode, target, result.timing, launch);
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
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend() { return std::make_unique<CudaBackend>(); }

}  // namespace fs::gpu
