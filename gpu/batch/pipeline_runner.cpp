// Pipelines on the device: the source goes up once, every step reads and
// writes device images, and only the last result comes down. Each result is
// freed once the last step reading it has run. Each step is timed with
// events; the first includes the upload, the last the download.
#include <algorithm>

#include "device_image.hpp"
#include "engine_core.hpp"
#include "fs/gpu/batch.hpp"
#include "fs/gpu/cuda_backend.hpp"

namespace fs::gpu {
namespace batch {
namespace {

// A convolution step: the step's filter in `mode` over a device image, its output allocated here.
std::string convolveStep(DeviceSession& session, const FilterSpec& spec, const DeviceImage& in, const std::string& mode,
                         DeviceImage& out, cudaStream_t s) {
    if (cudaError_t err = out.allocate(session, in.width, in.height, in.channels, spec.outputDepth(in.depth));
        err != cudaSuccess)
        return cudaMessage("allocating the output", err);
    return session.convolve(spec, in.view(), mode, out.data(), out.pitch(), s);
}

class CudaPipelineRunner final : public PipelineRunner {
public:
    CudaPipelineRunner(std::string backendId, std::string mode)
        : backendId_(std::move(backendId)), mode_(std::move(mode)) {}

    PipelineResult run(const Pipeline& pipeline, ConstImageView input) override {
        PipelineResult result;
        try {
            result.error = runSteps(pipeline, input, result);
        } catch (const std::exception& e) {
            result.error = e.what();
        }
        if (!result.ok()) result.output = Image();
        return result;
    }

private:
    std::string runSteps(const Pipeline& pipeline, ConstImageView input, PipelineResult& result) {
        if (std::string why = validatePipeline(pipeline); !why.empty()) return why;
        if (std::string why = validateImage(input); !why.empty()) return "input: " + why;
        if (std::string why = validatePipelineFor(pipeline, input.width, input.height, input.channels, input.depth); !why.empty()) {
            result.inputRejected = true;
            return why;
        }
        DeviceSession session;
        if (!session.problem().empty()) return session.problem();
        const cudaStream_t s = session.stream(0);
        PieceEvents events;
        if (cudaError_t err = events.create(); err != cudaSuccess) return cudaMessage("creating events", err);
        // Destroying an event still pending is safe; the session drains the stream as it ends.
        struct Guard {
            PieceEvents& events;
            ~Guard() { events.destroy(); }
        } guard{events};
        const cudaEvent_t start = events.start, stop = events.done;

        DeviceImage source;
        cudaEventRecord(start, s);
        if (cudaError_t err = source.upload(session, input, s); err != cudaSuccess) return cudaMessage("uploading", err);
        cudaEventRecord(stop, s);
        cudaEventSynchronize(stop);
        const double uploadMs = elapsedMs(start, stop);

        const std::vector<std::vector<int>> inputs = resolveStepInputs(pipeline);
        const std::vector<std::size_t> lastReader = lastReaders(inputs);
        const std::size_t lastStep = pipeline.steps.size() - 1;
        std::vector<DeviceImage> outputs(pipeline.steps.size());
        std::size_t live = 0;
        auto resolve = [&](int k) -> const DeviceImage& {
            return k == kSourceInput ? source : outputs[static_cast<std::size_t>(k)];
        };
        auto release = [&](std::size_t k) {
            if (outputs[k].empty()) return;
            outputs[k].release();
            --live;
        };
        for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
            const PipelineStep& step = pipeline.steps[i];
            const std::string where = "steps[" + std::to_string(i) + "] (" + step.label() + "): ";
            const DeviceImage& first = resolve(inputs[i][0]);
            DeviceImage& out = outputs[i];
            cudaEventRecord(start, s);
            std::string why;
            switch (step.op) {
            case StepOp::Convolve: why = convolveStep(session, step.filter, first, mode_, out, s); break;
            case StepOp::Abs: why = absOnDevice(session, first, out, s); break;
            case StepOp::Magnitude: why = magnitudeOnDevice(session, first, resolve(inputs[i][1]), out, s); break;
            case StepOp::Threshold: why = thresholdOnDevice(session, first, step.threshold, out, s); break;
            case StepOp::Normalize: why = normalizeOnDevice(session, first, out, s); break;
            case StepOp::Grayscale: why = grayscaleOnDevice(session, first, out, s); break;
            case StepOp::Label: {
                long long count = 0;
                why = labelOnDevice(session, first, out, count, s);
                if (why.empty()) result.objectCount = count;
                result.inputRejected = count > kMaxLabelCount;  // the image, not the device, is at fault
                break;
            }
            }
            if (!why.empty()) return where + why;
            cudaEventRecord(stop, s);
            if (cudaError_t err = cudaEventSynchronize(stop); err != cudaSuccess) return where + cudaMessage("running", err);
            StepReport report;
            report.label = step.label();
            report.timing.backend = backendId_;
            report.timing.mode = step.op == StepOp::Convolve ? mode_ : "device";
            report.timing.kernelMs = elapsedMs(start, stop);
            if (i == 0) report.timing.uploadMs = uploadMs;
            report.timing.totalMs = *report.timing.kernelMs + (i == 0 ? uploadMs : 0.0);
            result.steps.push_back(std::move(report));
            result.peakLiveResults = std::max(result.peakLiveResults, ++live);
            // The step has finished (its stop event was waited for): inputs it read last can go.
            for (const int k : inputs[i])
                if (k != kSourceInput && lastReader[static_cast<std::size_t>(k)] == i) release(static_cast<std::size_t>(k));
            if (lastReader[i] == i && i != lastStep) release(i);
        }
        source.release();
        cudaEventRecord(start, s);
        if (cudaError_t err = outputs[lastStep].download(result.output, s); err != cudaSuccess)
            return cudaMessage("downloading", err);
        cudaEventRecord(stop, s);
        if (cudaError_t err = cudaEventSynchronize(stop); err != cudaSuccess) return cudaMessage("downloading", err);
        TimingRecord& last = result.steps.back().timing;
        last.downloadMs = elapsedMs(start, stop);
        last.totalMs = *last.totalMs + *last.downloadMs;
        return {};
    }

    std::string backendId_;
    std::string mode_;
};

}  // namespace
}  // namespace batch

std::unique_ptr<PipelineRunner> makeCudaPipelineRunner(std::string mode) {
    return std::make_unique<batch::CudaPipelineRunner>(makeCudaBackend()->id(), std::move(mode));
}

std::string labelComponentsCuda(ConstImageView mask, Image& labels, long long& count) {
    try {
        DeviceSession session;
        if (!session.problem().empty()) return session.problem();
        if (std::string why = validateImage(mask); !why.empty()) return why;
        batch::DeviceImage in, out;
        const cudaStream_t s = session.stream(0);
        std::string why;
        if (cudaError_t err = in.upload(session, mask, s); err != cudaSuccess) why = cudaMessage("uploading", err);
        if (why.empty()) why = batch::labelOnDevice(session, in, out, count, s);
        if (why.empty())
            if (cudaError_t err = out.download(labels, s); err != cudaSuccess) why = cudaMessage("downloading", err);
        if (cudaError_t err = cudaStreamSynchronize(s); why.empty() && err != cudaSuccess)
            why = cudaMessage("labelling", err);
        return why;
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace fs::gpu
