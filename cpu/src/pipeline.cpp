// Runs a Pipeline step by step: convolutions through a borrowed backend,
// point operations and labelling with the CPU loops. Each step's result is
// released as soon as the last step that reads it has run.
#include <chrono>
#include <exception>
#include <functional>
#include <algorithm>
#include <new>
#include <utility>

#include "cpu_modes.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/run_control.hpp"

namespace fs::cpu {
namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// How convolution steps are run; everything else is the same for every runner.
using Convolve = std::function<RunResult(const FilterSpec&, ConstImageView)>;

PipelineResult runSteps(const Pipeline& pipeline, ConstImageView input, const Convolve& convolve) {
    PipelineResult result;
    if (std::string why = validatePipeline(pipeline); !why.empty()) {
        result.error = why;
        return result;
    }
    if (std::string why = validateImage(input); !why.empty()) {
        result.error = "input: " + why;
        return result;
    }
    if (std::string why = validatePipelineFor(pipeline, input.width, input.height, input.channels, input.depth); !why.empty()) {
        result.error = why;
        result.inputRejected = true;
        return result;
    }
    const std::vector<std::vector<int>> inputs = resolveStepInputs(pipeline);
    const std::vector<std::size_t> lastReader = lastReaders(inputs);
    std::vector<Image> outputs(pipeline.steps.size());
    std::size_t live = 0;
    auto resolve = [&](int k) -> ConstImageView {
        return k == kSourceInput ? input : outputs[static_cast<std::size_t>(k)].cview();
    };
    auto release = [&](std::size_t k) {
        if (outputs[k].empty()) return;
        outputs[k] = Image();
        --live;
    };
    const std::size_t last = pipeline.steps.size() - 1;
    // A cancelled run stops between steps (and inside a convolution, where the
    // backend checks too); progress counts steps, not a step's rows.
    RunControl* const control = currentRunControl();
    for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
        if (control && control->cancelled()) {
            result.error = kRunCancelled;
            return result;
        }
        if (control) control->setProgress(static_cast<double>(i) / static_cast<double>(pipeline.steps.size()));
        const PipelineStep& step = pipeline.steps[i];
        const std::string where = "steps[" + std::to_string(i) + "] (" + step.label() + "): ";
        const ConstImageView first = resolve(inputs[i][0]);
        StepReport report;
        report.label = step.label();
        report.timing.backend = "cpu";
        report.timing.mode = "reference";
        const Clock::time_point start = Clock::now();
        Image out;
        try {
            switch (step.op) {
            case StepOp::Convolve: {
                RunControl part(control);  // the convolution's rows move the part's progress, not the pipeline's
                const ScopedRunControl scoped(&part);
                RunResult r = convolve(step.filter, first);
                if (!r.ok()) {
                    result.error = r.error == kRunCancelled ? r.error : where + r.error;
                    return result;
                }
                out = std::move(r.output);
                report.timing = r.timing;
                break;
            }
            case StepOp::Abs: out = absoluteValues(first); break;
            case StepOp::Magnitude: out = magnitudeOf(first, resolve(inputs[i][1])); break;
            case StepOp::Threshold: out = thresholdMask(first, step.threshold); break;
            case StepOp::Normalize: out = normalizeTo8Bit(first); break;
            case StepOp::Grayscale: out = grayscale(first); break;
            case StepOp::Label: {
                long long count = 0;
                out = labelImage(first, count);
                result.objectCount = count;
                break;
            }
            }
        } catch (const std::bad_alloc&) {
            result.error = where + "out of memory";
            return result;
        } catch (const std::invalid_argument& e) {  // the step's data does not suit it (too many objects to label)
            result.error = where + e.what();
            result.inputRejected = true;
            return result;
        } catch (const std::exception& e) {
            result.error = where + e.what();
            return result;
        }
        // One alpha rule for every step: a 4-channel result keeps its input's alpha unless
        // the step filters alpha (a convolution's backend has done so already, to the same bytes).
        if (!step.filter.filterAlpha && alphaCopyable(first, out.cview())) copyAlpha(first, out.view());
        if (step.op != StepOp::Convolve) report.timing.kernelMs = millisecondsSince(start);
        report.timing.totalMs = millisecondsSince(start);
        result.steps.push_back(std::move(report));
        outputs[i] = std::move(out);
        result.peakLiveResults = std::max(result.peakLiveResults, ++live);
        for (const int k : inputs[i])
            if (k != kSourceInput && lastReader[static_cast<std::size_t>(k)] == i) release(static_cast<std::size_t>(k));
        if (lastReader[i] == i && i != last) release(i);
    }
    if (control) control->setProgress(1.0);
    result.output = std::move(outputs[last]);
    return result;
}

class CpuPipelineRunner final : public PipelineRunner {
public:
    CpuPipelineRunner(Backend& backend, std::string mode) : backend_(backend), mode_(std::move(mode)) {}

    PipelineResult run(const Pipeline& pipeline, ConstImageView input) override {
        try {
            return runSteps(pipeline, input, [this](const FilterSpec& spec, ConstImageView in) {
                return backend_.run(spec, in, mode_);
            });
        } catch (const std::exception& e) {  // allocating the bookkeeping itself
            PipelineResult r;
            r.error = e.what();
            return r;
        }
    }

private:
    Backend& backend_;
    std::string mode_;
};

}  // namespace

std::unique_ptr<PipelineRunner> makePipelineRunner(Backend& convolutions, std::string mode) {
    return std::make_unique<CpuPipelineRunner>(convolutions, std::move(mode));
}

PipelineResult runPipelineReference(const Pipeline& pipeline, ConstImageView input) {
    try {
        return runSteps(pipeline, input, [](const FilterSpec& spec, ConstImageView in) {
            RunResult r;
            r.timing.backend = "cpu";
            r.timing.mode = "reference";
            try {
                r.output = referenceFilter(spec, in);
            } catch (const std::exception& e) {
                r.error = e.what();
            }
            return r;
        });
    } catch (const std::exception& e) {
        PipelineResult r;
        r.error = e.what();
        return r;
    }
}

}  // namespace fs::cpu
