// Pipelines on the device: the source goes up once, every step reads and
// writes device images, and only the last result comes down. Each step is
// timed with events; the first includes the upload, the last the download.
#include <map>
#include <mutex>

#include "device_image.hpp"
#include "fs/gpu/batch.hpp"
#include "pipeline.hpp"

namespace fs::gpu {
namespace batch {
namespace {

float elapsed(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0f;
}

class CudaPipelineRunner final : public PipelineRunner {
public:
    explicit CudaPipelineRunner(std::string mode) : mode_(std::move(mode)) {}

    PipelineResult run(const Pipeline& pipeline, ConstImageView input) override {
        PipelineResult result;
        try {
            if (std::string why = cudaUnavailableReason(); !why.empty()) result.error = why;
            else result.error = runSteps(pipeline, input, result);
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
        std::lock_guard<std::mutex> lock(deviceMutex());
        cudaStream_t s = nullptr;
        if (cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); err != cudaSuccess)
            return cudaProblem("creating a stream", err);
        cudaEvent_t start = nullptr, stop = nullptr;
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
        struct Guard {
            cudaStream_t s;
            cudaEvent_t a, b;
            ~Guard() {
                cudaStreamSynchronize(s);
                cudaEventDestroy(a);
                cudaEventDestroy(b);
                cudaStreamDestroy(s);
            }
        } guard{s, start, stop};

        DeviceImage source;
        cudaEventRecord(start, s);
        if (cudaError_t err = source.upload(input, s); err != cudaSuccess) return cudaProblem("uploading", err);
        cudaEventRecord(stop, s);
        cudaEventSynchronize(stop);
        const double uploadMs = elapsed(start, stop);

        std::vector<DeviceImage> outputs(pipeline.steps.size());
        std::map<std::string, std::size_t> byId;
        auto resolve = [&](const std::string& name) -> const DeviceImage& {
            return name == kPipelineSource ? source : outputs[byId.at(name)];
        };
        for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
            const PipelineStep& step = pipeline.steps[i];
            const std::string where = "steps[" + std::to_string(i) + "] (" + step.label() + "): ";
            const DeviceImage& first = step.inputs.empty() ? (i == 0 ? source : outputs[i - 1]) : resolve(step.inputs[0]);
            DeviceImage& out = outputs[i];
            cudaEventRecord(start, s);
            std::string why;
            switch (step.op) {
            case StepOp::Convolve: why = convolveOnDevice(step.filter, first, mode_, out, s); break;
            case StepOp::Abs: why = absOnDevice(first, out, s); break;
            case StepOp::Magnitude: why = magnitudeOnDevice(first, resolve(step.inputs[1]), out, s); break;
            case StepOp::Threshold: why = thresholdOnDevice(first, step.threshold, out, s); break;
            case StepOp::Normalize: why = normalizeOnDevice(first, out, s); break;
            case StepOp::Grayscale: why = grayscaleOnDevice(first, out, s); break;
            case StepOp::Label: {
                long long count = 0;
                why = labelOnDevice(first, out, count, s);
                if (why.empty()) result.objectCount = count;
                break;
            }
            }
            if (!why.empty()) return where + why;
            cudaEventRecord(stop, s);
            if (cudaError_t err = cudaEventSynchronize(stop); err != cudaSuccess) return where + cudaProblem("running", err);
            StepReport report;
            report.label = step.label();
            report.timing.backend = "cuda";
            report.timing.mode = step.op == StepOp::Convolve ? mode_ : "device";
            report.timing.kernelMs = elapsed(start, stop);
            if (i == 0) report.timing.uploadMs = uploadMs;
            report.timing.totalMs = *report.timing.kernelMs + (i == 0 ? uploadMs : 0.0);
            result.steps.push_back(std::move(report));
            if (!step.id.empty()) byId[step.id] = i;
        }
        cudaEventRecord(start, s);
        if (cudaError_t err = outputs.back().download(result.output, s); err != cudaSuccess)
            return cudaProblem("downloading", err);
        cudaEventRecord(stop, s);
        if (cudaError_t err = cudaEventSynchronize(stop); err != cudaSuccess) return cudaProblem("downloading", err);
        TimingRecord& last = result.steps.back().timing;
        last.downloadMs = elapsed(start, stop);
        last.totalMs = *last.totalMs + *last.downloadMs;
        return {};
    }

    std::string mode_;
};

}  // namespace
}  // namespace batch

std::unique_ptr<PipelineRunner> makeCudaPipelineRunner(std::string mode) {
    return std::make_unique<batch::CudaPipelineRunner>(std::move(mode));
}

std::string labelComponentsCuda(ConstImageView mask, Image& labels, long long& count) {
    try {
        if (std::string why = cudaUnavailableReason(); !why.empty()) return why;
        if (std::string why = validateImage(mask); !why.empty()) return why;
        std::lock_guard<std::mutex> lock(batch::deviceMutex());
        batch::DeviceImage in, out;
        cudaStream_t s = nullptr;
        if (cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); err != cudaSuccess)
            return batch::cudaProblem("creating a stream", err);
        std::string why;
        if (cudaError_t err = in.upload(mask, s); err != cudaSuccess) why = batch::cudaProblem("uploading", err);
        if (why.empty()) why = batch::labelOnDevice(in, out, count, s);
        if (why.empty())
            if (cudaError_t err = out.download(labels, s); err != cudaSuccess) why = batch::cudaProblem("downloading", err);
        if (cudaError_t err = cudaStreamSynchronize(s); why.empty() && err != cudaSuccess)
            why = batch::cudaProblem("labelling", err);
        cudaStreamDestroy(s);
        return why;
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace fs::gpu
