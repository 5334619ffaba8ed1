// The CUDA batch runner: a pipeline over images. Each image goes up once
// into a slot's device buffer; in mode "auto" one fused launch (or one per
// 32 filters) computes every filter up to 31x31 from a shared-memory tile,
// other modes and larger kernels take their mode's own launch on the same
// upload; then all outputs of the image come down in one copy. Slots have
// their own stream, device buffers and pinned staging, all reused across
// images and calls, so while the host copies image i's outputs into the
// result Images, the GPU already transfers and filters images i+1..i+3.
// That copy is the bottleneck (docs/performance.md, "Batches of images"):
// the results are fresh fs::Image allocations whose pages fault on first
// write, which costs one thread far longer than the PCIe download of the
// same bytes, so it runs on several threads; runGridInto skips it for the
// caller's images.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <tuple>

#include "device_image.hpp"
#include "engine_core.hpp"
#include "fs/gpu/batch.hpp"
#include "fused_kernel.hpp"
#include "host_copies.hpp"

namespace fs::gpu {
namespace batch {
namespace {

constexpr int kSlots = kEngineStreams;
constexpr std::size_t kInputPitchAlign = 512;  // texture mode binds the input as a pitched 2D texture
constexpr std::size_t kOutputAlign = 256;
constexpr std::size_t kPinnedCap = std::size_t(2) << 30;  // pinned staging of all slots together

// One output of an image in a slot's arena (device) and staging (pinned): same offsets.
struct OutputPlace {
    std::size_t spec = 0;
    std::size_t offset = 0, rowBytes = 0;
    Depth depth = Depth::U8;
    bool fused = false;
    ImageView target;     // runGridInto: the caller's image
    bool direct = false;  // target is pinned: downloaded into it, no host copy
    std::string error;    // set at launch: this pair failed, the others go on
};

// Slot i runs on the engine's stream i with its batch buffers and staging.
struct Slot {
    int index = 0;
    PieceEvents events;
    // The image in flight.
    bool busy = false;
    std::size_t image = 0;
    int width = 0, height = 0, channels = 1;
    std::vector<OutputPlace> outputs;
    double hostMs = 0;  // staging the input
    Clock::time_point began;
};

// Which specs one pass over the images runs: fused ones share constant memory
// (at most kFusedWeightCapacity floats per pass), the rest take their mode.
struct Pass {
    std::vector<std::size_t> fused;  // sorted by border, so each border's tile is staged once
    std::vector<std::size_t> byMode;
    std::vector<float> weights;
    std::vector<int> weightOffset;  // per spec index (fused ones)
    std::vector<int> borderGroup;   // per spec index (fused ones)
};

std::string checkTarget(const ImageView& t, ConstImageView in, Depth depth) {
    const std::size_t rowBytes = depthBytes(depth) * in.channels * static_cast<std::size_t>(in.width);
    if (t.data && t.width == in.width && t.height == in.height && t.channels == in.channels && t.depth == depth &&
        t.stride >= rowBytes)
        return {};
    return "output image: expected " + std::to_string(in.width) + "x" + std::to_string(in.height) + "x" +
           std::to_string(in.channels) + " " + depthName(depth) + " with a stride of at least " +
           std::to_string(rowBytes) + " bytes";
}

class PipelinedBatchRunner final : public CudaBatchRunner {
public:
    PipelinedBatchRunner(Backend& backend, CudaBatchOptions options) : CudaBatchRunner(backend), options_(options) {
        for (int i = 0; i < kSlots; ++i) slots_[i].index = i;
    }

    ~PipelinedBatchRunner() override {
        for (Slot& s : slots_) s.events.destroy();  // every call ends with its slots drained
    }

    std::vector<RunResult> runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                    const std::string& mode) override {
        return runGrid({input}, specs, mode);
    }

    std::vector<RunResult> runGrid(const std::vector<ConstImageView>& inputs, const std::vector<FilterSpec>& specs,
                                   const std::string& mode) override {
        targets_ = nullptr;
        return runWith(inputs, specs, mode);
    }

    std::vector<RunResult> runGridInto(const std::vector<ConstImageView>& inputs, const std::vector<FilterSpec>& specs,
                                       const std::string& mode, const std::vector<ImageView>& outputs) override {
        if (outputs.size() != inputs.size() * specs.size()) {
            std::vector<RunResult> results(inputs.size() * specs.size());
            for (RunResult& r : results)
                r.error = "runGridInto: " + std::to_string(outputs.size()) + " output images for " +
                          std::to_string(results.size()) + " pairs";
            return results;
        }
        targets_ = &outputs;
        std::vector<RunResult> results = runWith(inputs, specs, mode);
        targets_ = nullptr;
        return results;
    }

private:
    std::vector<RunResult> runWith(const std::vector<ConstImageView>& inputs, const std::vector<FilterSpec>& specs,
                                   const std::string& mode) {
        if (inputs.empty() || specs.empty()) return std::vector<RunResult>(inputs.size() * specs.size());
        if (!backend().available()) {
            // Backend::run per pair (each carries the reason), into the caller's images under runGridInto.
            std::vector<RunResult> results;
            for (std::size_t i = 0; i < inputs.size(); ++i)
                for (std::size_t j = 0; j < specs.size(); ++j) results.push_back(runPair(inputs[i], i, j, specs, mode));
            return results;
        }
        DeviceSession session;
        std::vector<RunResult> results(inputs.size() * specs.size());
        std::string problem = session.problem();
        session_ = &session;
        try {
            if (problem.empty()) problem = runAll(inputs, specs, mode, results);
        } catch (const std::bad_alloc&) {
            problem = "out of host memory";
        } catch (const std::exception& e) {
            problem = e.what();
        }
        if (!problem.empty()) {
            drain();
            for (RunResult& r : results)
                if (r.ok() && r.timing.backend.empty()) r.error = problem;  // not finished
        }
        session_ = nullptr;
        return results;
    }

    // Backend::run for one pair (no device, or an image too large to keep on
    // it), its output moved into the caller's image under runGridInto.
    RunResult runPair(ConstImageView in, std::size_t image, std::size_t j, const std::vector<FilterSpec>& specs,
                      const std::string& mode) {
        RunResult r = BatchRunner::runPair(in, specs[j], mode);
        if (!targets_ || !r.ok()) return r;
        const ImageView& t = (*targets_)[image * specs.size() + j];
        if (std::string why = checkTarget(t, in, r.output.depth()); !why.empty()) {
            r.error = why;
        } else {
            const std::size_t rowBytes = r.output.view().rowBytes();
            for (int y = 0; y < t.height; ++y) std::memcpy(t.row<unsigned char>(y), r.output.view().row<unsigned char>(y), rowBytes);
        }
        r.output = Image();
        return r;
    }

    std::string runAll(const std::vector<ConstImageView>& inputs, const std::vector<FilterSpec>& specs,
                       const std::string& mode, std::vector<RunResult>& results) {
        const std::size_t m = specs.size();
        if (std::string why = createSlots(); !why.empty()) return why;
        if (!copier_)
            copier_ = std::make_unique<HostCopier>(
                options_.hostThreads > 0 ? options_.hostThreads : HostCopier::defaultThreads(), options_.prefault);
        mode_ = mode;
        prepared_.clear();

        std::vector<bool> imageOk(inputs.size(), true);
        for (std::size_t i = 0; i < inputs.size(); ++i)
            if (std::string why = validateImage(inputs[i]); !why.empty()) {
                imageOk[i] = false;
                for (std::size_t j = 0; j < m; ++j) results[i * m + j].error = why;
            }
        // Spec errors do not depend on the image: found once, given to every pair.
        std::vector<PreparedFilter> prepared(m);
        std::vector<bool> specOk(m, true);
        for (std::size_t j = 0; j < m; ++j)
            if (std::string why = prepareFilter(specs[j], Depth::U8, 1, prepared[j]); !why.empty()) {
                specOk[j] = false;
                for (std::size_t i = 0; i < inputs.size(); ++i)
                    if (imageOk[i]) results[i * m + j].error = why;
            }

        const ModeImpl* registered = findRegisteredMode(mode);
        const bool fuses = registered && registered->choosesPerFilter();  // the mode picks per filter: fusing is its pick
        for (const Pass& pass : planPasses(specs, prepared, specOk, fuses)) {
            if (std::string why = runPass(pass, inputs, imageOk, specs, mode, results); !why.empty()) return why;
        }
        return {};
    }

    std::vector<Pass> planPasses(const std::vector<FilterSpec>& specs, const std::vector<PreparedFilter>& prepared,
                                 const std::vector<bool>& specOk, bool fuses) {
        std::vector<Pass> passes(1);
        for (Pass& p : passes) p.weightOffset.assign(specs.size(), 0), p.borderGroup.assign(specs.size(), 0);
        for (std::size_t j = 0; j < specs.size(); ++j) {
            if (!specOk[j]) continue;
            const KernelMath& k = prepared[j].math;
            if (!fuses || std::max(k.kw, k.kh) > kFusedMaxSize) {
                passes.front().byMode.push_back(j);
                continue;
            }
            if (passes.back().weights.size() + prepared[j].weights.size() > static_cast<std::size_t>(kFusedWeightCapacity)) {
                passes.emplace_back();
                passes.back().weightOffset.assign(specs.size(), 0);
                passes.back().borderGroup.assign(specs.size(), 0);
            }
            Pass& p = passes.back();
            p.weightOffset[j] = static_cast<int>(p.weights.size());
            p.weights.insert(p.weights.end(), prepared[j].weights.begin(), prepared[j].weights.end());
            p.fused.push_back(j);
        }
        auto borderKey = [&](std::size_t j) {
            const Border& b = specs[j].border;
            return std::make_pair(static_cast<int>(b.mode), b.mode == BorderMode::Constant ? b.value : 0.0f);
        };
        for (Pass& p : passes) {
            std::stable_sort(p.fused.begin(), p.fused.end(),
                             [&](std::size_t a, std::size_t b) { return borderKey(a) < borderKey(b); });
            int group = 0;
            for (std::size_t k = 0; k < p.fused.size(); ++k) {
                if (k > 0 && borderKey(p.fused[k]) != borderKey(p.fused[k - 1])) ++group;
                p.borderGroup[p.fused[k]] = group;
            }
        }
        return passes;
    }

    std::string createSlots() {
        for (Slot& s : slots_)
            if (const cudaError_t err = s.events.create(); err != cudaSuccess) return cudaMessage("creating events", err);
        return {};
    }

    cudaStream_t streamOf(const Slot& s) const { return session_->stream(s.index); }
    DeviceBuffer& inputOf(const Slot& s) const { return session_->core().batchIn[s.index]; }
    DeviceBuffer& outputOf(const Slot& s) const { return session_->core().batchOut[s.index]; }
    unsigned char* stage(const Slot& s, StagingSide side, std::optional<std::size_t> reserveBytes = std::nullopt) const {
        const int key = stagingKey(StagingUser::Batch, s.index, side);
        return reserveBytes ? session_->staging().reserve(key, *reserveBytes) : session_->staging().data(key);
    }

    // Where each output of this image goes; returns the arena size.
    static std::size_t placeOutputs(ConstImageView in, const Pass& pass, const std::vector<FilterSpec>& specs,
                                    std::vector<OutputPlace>& places) {
        places.clear();
        std::size_t at = 0;
        auto add = [&](std::size_t j, bool fused) {
            OutputPlace p;
            p.spec = j;
            p.fused = fused;
            p.depth = specs[j].outputDepth(in.depth);
            p.rowBytes = depthBytes(p.depth) * in.channels * static_cast<std::size_t>(in.width);
            p.offset = alignUp(at, kOutputAlign);
            at = p.offset + p.rowBytes * static_cast<std::size_t>(in.height);
            places.push_back(p);
        };
        for (std::size_t j : pass.fused) add(j, true);
        for (std::size_t j : pass.byMode) add(j, false);
        return at;
    }

    std::string runPass(const Pass& pass, const std::vector<ConstImageView>& inputs, const std::vector<bool>& imageOk,
                        const std::vector<FilterSpec>& specs, const std::string& mode, std::vector<RunResult>& results) {
        if (pass.fused.empty() && pass.byMode.empty()) return {};
        const cudaStream_t first = streamOf(slots_[0]);
        cudaError_t err = uploadFusedWeights(pass.weights, first);
        if (err == cudaSuccess) err = cudaStreamSynchronize(first);
        if (err != cudaSuccess) return cudaMessage("uploading the weights", err);

        // Slots that fit beside each other in device memory and pinned staging.
        std::size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) cudaGetLastError();
        for (const Slot& s : slots_) freeBytes += inputOf(s).bytes() + outputOf(s).bytes();  // ours to reuse
        const std::size_t deviceBudget = freeBytes / 10 * 8;
        std::vector<OutputPlace> places;
        std::size_t largest = 0;
        for (std::size_t i = 0; i < inputs.size(); ++i)
            if (imageOk[i])
                if (const std::size_t need = slotBytes(inputs[i], pass, specs, places); need <= deviceBudget)
                    largest = std::max(largest, need);
        const std::size_t slotsUsed =
            largest == 0 ? 1 : std::clamp<std::size_t>(std::min(deviceBudget, kPinnedCap) / largest, 1, kSlots);
        // Modes keep weights in one buffer and in constant memory: their launches stay in one stream.
        const bool oneStream = !pass.byMode.empty();

        std::size_t next = 0;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            if (!imageOk[i]) continue;
            Slot& s = slots_[next++ % slotsUsed];
            if (std::string why = finish(s, specs, results); !why.empty()) return why;
            const ConstImageView in = inputs[i];
            const std::size_t need = slotBytes(in, pass, specs, places);
            if (need > deviceBudget || need > kPinnedCap || (in.height + 31) / 32 > 65535) {
                // Too large to keep whole on the device: the backend's strips, pair by pair.
                if (std::string why = drain(specs, results); !why.empty()) return why;
                runPairsOneByOne(in, i, pass, specs, mode, results);
                continue;
            }
            if (std::string why = enqueue(s, in, i, pass, specs, mode, oneStream ? first : streamOf(s));
                !why.empty())
                return why;
        }
        return drain(specs, results);
    }

    std::size_t slotBytes(ConstImageView in, const Pass& pass, const std::vector<FilterSpec>& specs,
                          std::vector<OutputPlace>& places) const {
        const std::size_t inBytes = alignUp(in.rowBytes(), kInputPitchAlign) * static_cast<std::size_t>(in.height);
        return inBytes + placeOutputs(in, pass, specs, places);
    }

    void runPairsOneByOne(ConstImageView in, std::size_t image, const Pass& pass, const std::vector<FilterSpec>& specs,
                          const std::string& mode, std::vector<RunResult>& results) {
        const std::size_t m = specs.size();
        for (const std::vector<std::size_t>* list : {&pass.fused, &pass.byMode})
            for (std::size_t j : *list) results[image * m + j] = runPair(in, image, j, specs, mode);
    }

    // Stages image `image` and enqueues its upload, filters and download on `stream`.
    std::string enqueue(Slot& s, ConstImageView in, std::size_t image, const Pass& pass,
                        const std::vector<FilterSpec>& specs, const std::string& mode, cudaStream_t stream) {
        s.began = Clock::now();
        const std::size_t arenaBytes = placeOutputs(in, pass, specs, s.outputs);
        bool anyDirect = false;
        if (targets_)
            for (OutputPlace& p : s.outputs) {
                p.target = (*targets_)[image * specs.size() + p.spec];
                p.error = checkTarget(p.target, in, p.depth);
                p.direct = p.error.empty() && isPinned(p.target.data);
                anyDirect = anyDirect || p.direct;
            }
        const std::size_t inRowBytes = in.rowBytes(), inPitch = alignUp(inRowBytes, kInputPitchAlign);
        const std::size_t rows = static_cast<std::size_t>(in.height);
        const bool inputPinned = isPinned(in.data);
        DeviceBuffer& deviceIn = inputOf(s);
        DeviceBuffer& deviceOut = outputOf(s);
        cudaError_t err = deviceIn.reserve(inPitch * rows);
        if (err == cudaSuccess) err = deviceOut.reserve(std::max<std::size_t>(arenaBytes, 1));
        if (err != cudaSuccess) return cudaMessage("allocating the batch buffers", err);
        unsigned char* outStage = stage(s, StagingSide::Out, std::max<std::size_t>(arenaBytes, 1));
        unsigned char* inStage = inputPinned ? nullptr : stage(s, StagingSide::In, inRowBytes * rows);
        if (!outStage || (!inputPinned && !inStage))
            return cudaMessage("allocating the batch staging", session_->staging().allocator().lastError);

        const auto t0 = Clock::now();
        if (!inputPinned)
            copier_->run({{inStage, inRowBytes, static_cast<const unsigned char*>(in.data), in.stride, inRowBytes,
                           in.height}});
        s.hostMs = msSince(t0);

        cudaEventRecord(s.events.start, stream);
        const void* from = inputPinned ? in.data : static_cast<const void*>(inStage);
        const std::size_t fromPitch = inputPinned ? in.stride : inRowBytes;
        if ((err = cudaMemcpy2DAsync(deviceIn.get(), inPitch, from, fromPitch, inRowBytes, rows, cudaMemcpyHostToDevice,
                                     stream)) != cudaSuccess)
            return cudaMessage("uploading", err);
        cudaEventRecord(s.events.uploaded, stream);

        const DeviceView view{deviceIn.data(), inPitch, in.width, in.height, in.channels, in.depth};
        if (std::string why = launchFusedChunks(view, s, pass, specs, stream); !why.empty()) return why;
        for (OutputPlace& p : s.outputs) {
            if (p.fused || !p.error.empty()) continue;
            Refusal refused;
            std::string why = session_->convolve(specs[p.spec], view, mode, deviceOut.data() + p.offset, p.rowBytes,
                                                 stream, &refused);
            if (why.empty()) continue;
            p.error = why;
            if (refused.ok()) return why;  // device trouble, not this pair's refusal
        }
        cudaEventRecord(s.events.filtered, stream);
        // One download for the whole arena, unless some outputs go straight into pinned targets.
        if (!anyDirect) err = cudaMemcpyAsync(outStage, deviceOut.get(), arenaBytes, cudaMemcpyDeviceToHost, stream);
        for (const OutputPlace& p : s.outputs) {
            if (!anyDirect || err != cudaSuccess || !p.error.empty()) continue;
            if (p.direct)
                err = cudaMemcpy2DAsync(p.target.data, p.target.stride, deviceOut.data() + p.offset, p.rowBytes, p.rowBytes,
                                        rows, cudaMemcpyDeviceToHost, stream);
            else
                err = cudaMemcpyAsync(outStage + p.offset, deviceOut.data() + p.offset, p.rowBytes * rows,
                                      cudaMemcpyDeviceToHost, stream);
        }
        if (err != cudaSuccess) return cudaMessage("downloading", err);
        if ((err = cudaEventRecord(s.events.done, stream)) != cudaSuccess) return cudaMessage("recording an event", err);
        s.busy = true;
        s.image = image;
        s.width = in.width;
        s.height = in.height;
        s.channels = in.channels;
        return {};
    }

    std::string launchFusedChunks(const DeviceView& view, const Slot& s, const Pass& pass,
                                  const std::vector<FilterSpec>& specs, cudaStream_t stream) {
        unsigned char* outBase = outputOf(s).data();
        // Prepared per depth and channel count of the image (output depth, the CPU's mapping).
        std::vector<const OutputPlace*> fused;
        for (const OutputPlace& p : s.outputs)
            if (p.fused) fused.push_back(&p);
        for (std::size_t first = 0; first < fused.size(); first += kFusedMaxFilters) {
            FusedLaunch launch;
            for (std::size_t k = first; k < std::min(fused.size(), first + kFusedMaxFilters); ++k) {
                const OutputPlace& p = *fused[k];
                const PreparedFilter& f = preparedFor(specs, p.spec, view.depth, view.channels);
                FusedFilter& ff = launch.filters[launch.count++];
                ff.math = f.math;
                ff.weightOffset = pass.weightOffset[p.spec];
                ff.border = specs[p.spec].border.mode;
                ff.borderValue = specs[p.spec].border.value;
                ff.borderGroup = pass.borderGroup[p.spec];
                ff.dstOffset = p.offset;
                ff.dstPitch = p.rowBytes;
                launch.rx = std::max(launch.rx, f.math.kw / 2);
                launch.ry = std::max(launch.ry, f.math.kh / 2);
            }
            if (cudaError_t err = launchFused(view, outBase, launch, stream); err != cudaSuccess)
                return cudaMessage("fused batch kernel launch", err);
        }
        return {};
    }

    // prepareFilter per (spec, depth, channels), kept for the whole call.
    const PreparedFilter& preparedFor(const std::vector<FilterSpec>& specs, std::size_t j, Depth depth, int channels) {
        const auto key = std::make_tuple(j, static_cast<int>(depth), channels);
        auto it = prepared_.find(key);
        if (it == prepared_.end()) {
            PreparedFilter f;
            prepareFilter(specs[j], depth, channels, f);  // the spec passed the same check before
            it = prepared_.emplace(key, std::move(f)).first;
        }
        return it->second;
    }

    // Waits for the slot's image and copies its outputs into the results.
    std::string finish(Slot& s, const std::vector<FilterSpec>& specs, std::vector<RunResult>& results) {
        if (!s.busy) return {};
        s.busy = false;
        if (cudaError_t err = cudaEventSynchronize(s.events.done); err != cudaSuccess) return cudaMessage("filtering", err);
        const std::size_t m = specs.size();
        const double uploadMs = s.events.uploadMs(), kernelMs = s.events.kernelMs(), downloadMs = s.events.downloadMs();
        const unsigned char* outStage = stage(s, StagingSide::Out);
        const auto t0 = Clock::now();
        std::vector<RowCopy> copies;
        for (const OutputPlace& p : s.outputs) {
            RunResult& r = results[s.image * m + p.spec];
            if (!p.error.empty()) {
                r.error = p.error;
                continue;
            }
            if (targets_) {
                if (!p.direct)
                    copies.push_back({static_cast<unsigned char*>(p.target.data), p.target.stride,
                                      outStage + p.offset, p.rowBytes, p.rowBytes, s.height, false});
                continue;
            }
            try {
                r.output = Image(s.width, s.height, s.channels, p.depth);
            } catch (const std::bad_alloc&) {
                r.error = "out of host memory for the output image";
                continue;
            }
            copies.push_back({r.output.data(), r.output.stride(), outStage + p.offset, p.rowBytes, p.rowBytes,
                              s.height, true});
        }
        copier_->run(copies);
        const double hostMs = s.hostMs + msSince(t0), totalMs = msSince(s.began);
        for (const OutputPlace& p : s.outputs) {
            RunResult& r = results[s.image * m + p.spec];
            if (!r.ok()) continue;
            TimingRecord& t = r.timing;
            t.backend = backend().id();
            t.mode = mode_;
            if (p.fused) t.launch = fusedLaunchLabel();
            t.hostPrepMs = hostMs;
            t.uploadMs = uploadMs;
            t.kernelMs = kernelMs;
            t.downloadMs = downloadMs;
            t.totalMs = totalMs;
        }
        return {};
    }

    // Finishes every slot in flight; the first CUDA error, if any.
    std::string drain(const std::vector<FilterSpec>& specs, std::vector<RunResult>& results) {
        std::string first;
        for (Slot& s : slots_)
            if (std::string why = finish(s, specs, results); !why.empty() && first.empty()) first = why;
        return first;
    }
    // After an error: stop waiting for anything (the session drains the streams as it ends).
    void drain() {
        for (Slot& s : slots_) s.busy = false;
        cudaGetLastError();
    }

    CudaBatchOptions options_;
    DeviceSession* session_ = nullptr;  // held for the whole of a runGrid call
    const std::vector<ImageView>* targets_ = nullptr;  // runGridInto's outputs during that call
    Slot slots_[kSlots];
    std::unique_ptr<HostCopier> copier_;
    std::string mode_;
    std::map<std::tuple<std::size_t, int, int>, PreparedFilter> prepared_;
};

}  // namespace
}  // namespace batch

std::unique_ptr<CudaBatchRunner> makeCudaBatchRunner(Backend& cudaBackend, CudaBatchOptions options) {
    return std::make_unique<batch::PipelinedBatchRunner>(cudaBackend, options);
}

}  // namespace fs::gpu
