#include "backends.hpp"

#include <chrono>
#include <exception>

#include "fs/batch.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/pipeline.hpp"
#if defined(FS_HAVE_OPENCV)
#include "fs/cpu/opencv_backend.hpp"
#endif
#include "cuda_library.hpp"
#if defined(FS_HAVE_OPENCL)
#include "fs/ocl/opencl_backend.hpp"
#endif

namespace fs {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The input's alpha back into a 4-channel result unless the spec filters
// alpha, then the valid interior when the spec asks for it: done here, once,
// so every backend, mode and runner treats alpha and output size alike. Both
// are part of the run the user waits for: their time joins the total.
void finishRun(const FilterSpec& spec, ConstImageView input, RunResult& result) {
    if (!result.ok()) return;
    try {
        const Clock::time_point start = Clock::now();
        if (keepsInputAlpha(spec, input) && result.output.channels() == 4) copyAlpha(input, result.output.view());
        if (spec.outputSize == OutputSize::Valid) result.output = validInterior(spec, result.output.cview());
        if (result.timing.totalMs) *result.timing.totalMs += msSince(start);
    } catch (const std::exception& e) {
        result.output = Image();
        result.error = std::string("finishing the result: ") + e.what();
    }
}

// What the wrapped backend computes: always the padded result, whose interior
// finishRun keeps for a valid spec.
FilterSpec paddedSpec(FilterSpec spec) {
    spec.outputSize = OutputSize::Same;
    return spec;
}

std::vector<FilterSpec> paddedSpecs(const std::vector<FilterSpec>& specs) {
    std::vector<FilterSpec> padded;
    padded.reserve(specs.size());
    for (const FilterSpec& s : specs) padded.push_back(paddedSpec(s));
    return padded;
}

// A valid spec on an image too small for it is refused before anything runs.
RunResult refusedRun(const Backend& backend, const std::string& mode, const std::string& why) {
    RunResult r;
    r.timing.backend = backend.id();
    r.timing.mode = mode;
    r.error = why;
    return r;
}

bool anyStepKeepsAlpha(const Pipeline& pipeline) {
    for (const PipelineStep& step : pipeline.steps)
        if (!step.filter.filterAlpha) return true;
    return false;
}

bool anyValidConvolution(const Pipeline& pipeline) {
    for (const PipelineStep& step : pipeline.steps)
        if (step.op == StepOp::Convolve && step.filter.outputSize == OutputSize::Valid) return true;
    return false;
}

class AlphaBatchRunner final : public BatchRunner {
public:
    AlphaBatchRunner(Backend& self, std::unique_ptr<BatchRunner> inner) : BatchRunner(self), inner_(std::move(inner)) {}

    std::vector<RunResult> runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                    const std::string& mode) override {
        std::vector<RunResult> results = inner_->runSpecs(input, paddedSpecs(specs), mode);
        for (std::size_t j = 0; j < results.size() && j < specs.size(); ++j) finishRun(specs[j], input, results[j]);
        return results;
    }
    std::vector<RunResult> runGrid(const std::vector<ConstImageView>& inputs, const std::vector<FilterSpec>& specs,
                                   const std::string& mode) override {
        std::vector<RunResult> results = inner_->runGrid(inputs, paddedSpecs(specs), mode);
        for (std::size_t i = 0; i < inputs.size(); ++i)
            for (std::size_t j = 0; j < specs.size() && i * specs.size() + j < results.size(); ++j)
                finishRun(specs[j], inputs[i], results[i * specs.size() + j]);
        return results;
    }

private:
    std::unique_ptr<BatchRunner> inner_;
};

// A backend's own pipeline runner, except for images whose alpha a step must
// keep and pipelines with a valid-size convolution: those run on the host
// runner around this run(), which keeps alpha and crops.
class AlphaPipelineRunner final : public PipelineRunner {
public:
    AlphaPipelineRunner(Backend& self, std::string mode, std::unique_ptr<PipelineRunner> own)
        : self_(self), mode_(std::move(mode)), own_(std::move(own)) {}

    PipelineResult run(const Pipeline& pipeline, ConstImageView input) override {
        if ((input.channels == 4 && anyStepKeepsAlpha(pipeline)) || anyValidConvolution(pipeline))
            return cpu::makePipelineRunner(self_, mode_)->run(pipeline, input);
        return own_->run(pipeline, input);
    }

private:
    Backend& self_;
    std::string mode_;
    std::unique_ptr<PipelineRunner> own_;
};

class AlphaKeepingBackend final : public Backend {
public:
    explicit AlphaKeepingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

    std::string id() const override { return inner_->id(); }
    std::string displayName() const override { return inner_->displayName(); }
    std::vector<ModeInfo> modes() const override { return inner_->modes(); }
    std::string unavailableReason() const override { return inner_->unavailableReason(); }
    std::vector<std::string> deviceDescriptions() const override { return inner_->deviceDescriptions(); }
    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) override {
        if (std::string why = validateRun(spec, input); !why.empty()) return refusedRun(*this, mode, why);
        RunResult r = inner_->run(paddedSpec(spec), input, mode);
        finishRun(spec, input, r);
        return r;
    }
    bool hasLaunchConfig() const override { return inner_->hasLaunchConfig(); }
    RunResult runWithLaunch(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                            const LaunchConfig& launch) override {
        if (std::string why = validateRun(spec, input); !why.empty()) return refusedRun(*this, mode, why);
        RunResult r = inner_->runWithLaunch(paddedSpec(spec), input, mode, launch);
        finishRun(spec, input, r);
        return r;
    }
    LaunchReport describeLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode, const LaunchConfig& launch) const override {
        return inner_->describeLaunch(paddedSpec(spec), width, height, depth, channels, mode, launch);
    }
    Explanation explain(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                        const std::string& mode) const override {
        return inner_->explain(paddedSpec(spec), width, height, depth, channels, mode);
    }
    std::string dispatchRules() const override { return inner_->dispatchRules(); }
    TuneResult tune(const FilterSpec& spec, ConstImageView input, const std::string& mode, const TuneOptions& options,
                    const TuneProgress& progress) override {
        return inner_->tune(paddedSpec(spec), input, mode, options, progress);
    }
    std::string resetTuning() override { return inner_->resetTuning(); }
    std::unique_ptr<BatchRunner> makeBatchRunner() override {
        return std::make_unique<AlphaBatchRunner>(*this, inner_->makeBatchRunner());
    }
    std::unique_ptr<PipelineRunner> makePipelineRunner(const std::string& mode) override {
        std::unique_ptr<PipelineRunner> own = inner_->makePipelineRunner(mode);
        if (!own) return nullptr;  // callers run the host runner around run(), which keeps alpha already
        return std::make_unique<AlphaPipelineRunner>(*this, mode, std::move(own));
    }

private:
    std::unique_ptr<Backend> inner_;
};

}  // namespace

std::unique_ptr<Backend> keepingAlpha(std::unique_ptr<Backend> backend) {
    return std::make_unique<AlphaKeepingBackend>(std::move(backend));
}

std::vector<std::unique_ptr<Backend>> makeAllBackends() {
    std::vector<std::unique_ptr<Backend>> backends;
#if defined(FS_HAVE_OPENCV)
    backends.push_back(cpu::makeCpuBackendWithOpenCV());
#else
    backends.push_back(cpu::makeCpuBackend());
#endif
#if defined(FS_HAVE_CUDA)
    backends.push_back(makeLazyCudaBackend());
#endif
#if defined(FS_HAVE_OPENCL)
    backends.push_back(opencl::makeOpenClBackend());
    backends.push_back(opencl::makeOpenClCpuBackend());
#endif
    for (std::unique_ptr<Backend>& b : backends) b = keepingAlpha(std::move(b));
    return backends;
}

bool isKnownBackendId(const std::string& id) {
    for (const char* known : {"cpu", "cuda", "opencl", "opencl-cpu"})
        if (id == known) return true;
    return false;
}

Backend* findBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id) {
    for (const auto& b : backends)
        if (b->id() == id) return b.get();
    return nullptr;
}

}  // namespace fs
