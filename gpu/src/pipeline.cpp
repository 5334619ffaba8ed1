// The transfer pipeline: pinned staging buffers and device buffers reused
// across runs, three slots each with its own stream, CUDA-event timings.
#include "pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

#include "device_buffer.hpp"
#include "fs/gpu/cuda_options.hpp"
#include "launch.hpp"
#include "tuning.hpp"

namespace fs::gpu {
namespace {

constexpr int kSlots = 3;
constexpr std::size_t kPitchAlign = 512;  // >= texturePitchAlignment on every CUDA GPU so far

std::size_t g_budget = 0;
int g_pipelineRows = 0;
bool g_failAllocations = false;

std::string cudaMessage(const char* what, cudaError_t err) {
    // Said plainly first: the user's next step (a smaller image, the CPU) depends on it.
    const std::string prefix = err == cudaErrorMemoryAllocation ? "out of device memory: " : "";
    return prefix + what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// One piece in flight: its stream, buffers and the events that time it.
struct Slot {
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, uploaded = nullptr, filtered = nullptr, done = nullptr;
    DeviceBuffer src, dst;
    PinnedBuffer srcStage, dstStage;
    bool busy = false;       // work enqueued and not yet collected
    bool downloads = false;  // that work ends with a download to collect
    int outRow0 = 0, outRows = 0;
};

struct Context {
    std::mutex mutex;  // one run at a time: constant memory is process-wide
    std::string unavailable;
    std::string name;
    bool initialised = false;
    Slot slots[kSlots];
    DeviceBuffer weights;

    std::string init() {
        if (initialised) return unavailable;
        initialised = true;
        int count = 0;
        cudaError_t err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess) {
            cudaGetLastError();
            unavailable = cudaMessage("no usable CUDA device", err);
            return unavailable;
        }
        if (count == 0) return unavailable = "no CUDA device found";
        cudaDeviceProp p{};
        if ((err = cudaGetDeviceProperties(&p, 0)) != cudaSuccess) return unavailable = cudaMessage("CUDA device 0", err);
        name = p.name;
        for (Slot& s : slots) {
            if ((err = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking)) != cudaSuccess ||
                (err = cudaEventCreate(&s.start)) != cudaSuccess || (err = cudaEventCreate(&s.uploaded)) != cudaSuccess ||
                (err = cudaEventCreate(&s.filtered)) != cudaSuccess || (err = cudaEventCreate(&s.done)) != cudaSuccess)
                return unavailable = cudaMessage("creating CUDA streams", err);
        }
        return {};
    }
};

Context& context() {
    // Never destroyed: its buffers would be freed after the CUDA runtime unloads at exit.
    static Context& c = *new Context;
    return c;
}

bool isPinned(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

double elapsedMs(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0;
}

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Totals {
    double upload = 0, kernel = 0, download = 0, host = 0;
};

// Waits for a slot's piece, adds its event times, and copies its output rows
// from the pinned stage into the host image (unless they went there directly).
cudaError_t collect(Slot& s, const PipelineTarget& target, bool outputPinned, std::size_t outRowBytes, Totals& t) {
    if (!s.busy) return cudaSuccess;
    s.busy = false;
    const cudaError_t err = cudaEventSynchronize(s.done);
    if (err != cudaSuccess) return err;
    t.upload += elapsedMs(s.start, s.uploaded);
    t.kernel += elapsedMs(s.uploaded, s.filtered);
    if (s.downloads) {
        t.download += elapsedMs(s.filtered, s.done);
        if (!outputPinned) {
            const auto t0 = Clock::now();
            for (int r = 0; r < s.outRows; ++r)
                std::memcpy(target.host.row<unsigned char>(s.outRow0 + r),
                            static_cast<unsigned char*>(s.dstStage.get()) + r * outRowBytes, outRowBytes);
            t.host += msSince(t0);
        }
    }
    return cudaSuccess;
}

}  // namespace

void setDeviceMemoryBudget(std::size_t bytes) { g_budget = bytes; }
std::size_t deviceMemoryBudget() { return g_budget; }
void setAllocationFailureForTesting(bool fail) { g_failAllocations = fail; }
bool deviceAllocationFailureForced() { return g_failAllocations; }
void setPipelineRows(int rows) { g_pipelineRows = std::max(0, rows); }

std::string withDevice(const std::function<std::string(cudaStream_t)>& work) {
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (std::string problem = c.init(); !problem.empty()) return problem;
    return work(c.slots[0].stream);
}

std::string cudaUnavailableReason() {
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.init();
}

std::string cudaDeviceName() {
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.init();
    return c.name;
}

std::string runPipeline(const FilterSpec& spec, ConstImageView input, const std::string& modeId,
                        const PipelineTarget& target, TimingRecord& timing, const LaunchConfig& launch) {
    const auto wallStart = Clock::now();
    std::string problem = validateRun(spec, input);
    if (!problem.empty()) return problem;
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (!(problem = c.init()).empty()) return problem;

    ResolvedLaunch resolved;
    if (!(problem = resolveLaunch(spec, input.depth, input.channels, modeId, launch, input.width, input.height,
                                  resolved))
             .empty())
        return problem;
    PreparedFilter& f = resolved.filter;
    const ModeImpl* mode = resolved.mode;
    const LaunchConfig& config = resolved.config;
    timing.launch = resolved.plan.config.shortLabel();

    const int width = input.width, height = input.height, ry = f.math.kh / 2;
    const Depth outDepth = spec.outputDepth(input.depth);
    const std::size_t inRowBytes = input.rowBytes();
    const std::size_t outRowBytes = depthBytes(outDepth) * input.channels * static_cast<std::size_t>(width);
    const std::size_t inPitch = alignUp(inRowBytes, kPitchAlign), outPitch = alignUp(outRowBytes, kPitchAlign);
    if (target.toDevice) {
        // 4-channel pixels are stored as one vector, others sample by sample.
        const std::size_t align = depthBytes(outDepth) * (input.channels == 4 ? 4 : 1);
        if (!target.device.data || target.device.pitch < outRowBytes || target.device.pitch % align != 0 ||
            reinterpret_cast<std::uintptr_t>(target.device.data) % align != 0)
            return "device output: null pointer, pitch smaller than a row (" + std::to_string(outRowBytes) +
                   " bytes), or pointer/pitch not a multiple of " + std::to_string(align) + " bytes";
    }

    // Piece height: images over 8 MB go in pieces of >= 4 MB (at most 12) so
    // upload, kernel and download overlap (24 pieces measured slower on an
    // 8K RGBA8 frame: 0.79x vs 0.72x of serial); then smaller pieces until
    // every slot's buffers fit the memory budget.
    const std::size_t imageBytes = inRowBytes * height;
    const int autoPieces = static_cast<int>(std::clamp<std::size_t>(imageBytes / (4u << 20), 2, 12));
    int pieceRows = g_pipelineRows > 0 ? g_pipelineRows
                    : imageBytes > (8u << 20) ? (height + autoPieces - 1) / autoPieces
                                              : height;
    pieceRows = std::min(pieceRows, height);
    std::size_t budget = g_budget;
    if (budget == 0) {
        std::size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) cudaGetLastError();
        budget = freeBytes / 10 * 8;
    }
    const std::size_t outPerRow = target.toDevice ? 0 : outPitch;
    auto slotBytes = [&](int rows) {
        return static_cast<std::size_t>(std::min(height, rows + 2 * ry)) * inPitch + rows * outPerRow;
    };
    while (pieceRows > 1 && kSlots * slotBytes(pieceRows) > budget) pieceRows = std::max(1, pieceRows * 3 / 4);
    if (kSlots * slotBytes(pieceRows) > budget)
        return "image rows too large for the device memory budget (" + std::to_string(budget >> 20) + " MB)";
    const int pieces = (height + pieceRows - 1) / pieceRows;

    const bool inputPinned = isPinned(input.data);
    const bool outputPinned = !target.toDevice && isPinned(target.host.data);
    cudaError_t err = cudaSuccess;
    auto fail = [&](const char* what) {
        for (Slot& s : c.slots) cudaStreamSynchronize(s.stream), s.busy = false;
        cudaGetLastError();  // clear non-sticky errors so the next run starts clean
        return cudaMessage(what, err);
    };

    // Weights: to device memory (global mode) and the mode's own place.
    if ((err = c.weights.reserve(kMaxKernels * kMaxKernelSize * kMaxKernelSize * sizeof(float))) != cudaSuccess)
        return fail("allocating the weights");
    if ((err = cudaMemcpyAsync(c.weights.get(), f.weights.data(), f.weights.size() * sizeof(float),
                               cudaMemcpyHostToDevice, c.slots[0].stream)) != cudaSuccess ||
        (err = mode->prepare(f, c.slots[0].stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(c.slots[0].stream)) != cudaSuccess)
        return fail("uploading the weights");
    f.deviceWeights = static_cast<const float*>(c.weights.get());

    const int slotsUsed = std::min(kSlots, pieces);
    for (int i = 0; i < slotsUsed; ++i) {
        Slot& s = c.slots[i];
        const std::size_t srcRows = static_cast<std::size_t>(std::min(height, pieceRows + 2 * ry));
        if ((err = s.src.reserve(srcRows * inPitch)) != cudaSuccess) return fail("allocating device memory");
        if (!target.toDevice && (err = s.dst.reserve(pieceRows * outPitch)) != cudaSuccess)
            return fail("allocating device memory");
        if (!inputPinned && (err = s.srcStage.reserve(srcRows * inRowBytes)) != cudaSuccess)
            return fail("allocating pinned host memory");
        if (!target.toDevice && !outputPinned && (err = s.dstStage.reserve(pieceRows * outRowBytes)) != cudaSuccess)
            return fail("allocating pinned host memory");
    }

    Totals totals;
    for (int piece = 0; piece < pieces; ++piece) {
        Slot& s = c.slots[piece % slotsUsed];
        if ((err = collect(s, target, outputPinned, outRowBytes, totals)) != cudaSuccess) return fail("filtering");
        const int a = piece * pieceRows, b = std::min(height, a + pieceRows);

        // Source rows this piece reads: [a - ry, b + ry) clipped to the image,
        // except with wrap, where they continue across the top/bottom edge.
        int rowBase = 0, srcRows = height;
        if (b - a + 2 * ry < height) {
            if (spec.border.mode == BorderMode::Wrap) {
                rowBase = ((a - ry) % height + height) % height;
                srcRows = b - a + 2 * ry;
            } else {
                rowBase = std::max(0, a - ry);
                srcRows = std::min(height, b + ry) - rowBase;
            }
        }
        // At most two runs of consecutive image rows (two only when wrapping).
        const int firstRun = std::min(srcRows, height - rowBase);
        const struct {
            int imageRow, bufferRow, rows;
        } runs[2] = {{rowBase, 0, firstRun}, {0, firstRun, srcRows - firstRun}};

        const auto t0 = Clock::now();
        if (!inputPinned)
            for (const auto& run : runs)
                for (int r = 0; r < run.rows; ++r)
                    std::memcpy(static_cast<unsigned char*>(s.srcStage.get()) + (run.bufferRow + r) * inRowBytes,
                                input.row<unsigned char>(run.imageRow + r), inRowBytes);
        totals.host += msSince(t0);

        cudaEventRecord(s.start, s.stream);
        for (const auto& run : runs) {
            if (run.rows == 0) continue;
            const void* from = inputPinned ? static_cast<const void*>(input.row<unsigned char>(run.imageRow))
                                           : static_cast<unsigned char*>(s.srcStage.get()) + run.bufferRow * inRowBytes;
            const std::size_t fromPitch = inputPinned ? input.stride : inRowBytes;
            if ((err = cudaMemcpy2DAsync(static_cast<unsigned char*>(s.src.get()) + run.bufferRow * inPitch, inPitch, from,
                                         fromPitch, inRowBytes, run.rows, cudaMemcpyHostToDevice, s.stream)) !=
                cudaSuccess)
                return fail("uploading");
        }
        cudaEventRecord(s.uploaded, s.stream);

        LaunchArgs args;
        args.filter = &f;
        args.config = config;
        KernelGeom& g = args.geom;
        g.src = static_cast<const unsigned char*>(s.src.get());
        g.srcPitch = inPitch;
        g.width = width;
        g.imageHeight = height;
        g.rowBase = rowBase;
        g.srcRows = srcRows;
        g.outRow0 = a;
        g.outRows = b - a;
        g.border = spec.border.mode;
        g.borderValue = spec.border.value;
        if (target.toDevice) {
            g.dst = static_cast<unsigned char*>(target.device.data) + static_cast<std::size_t>(a) * target.device.pitch;
            g.dstPitch = target.device.pitch;
        } else {
            g.dst = static_cast<unsigned char*>(s.dst.get());
            g.dstPitch = outPitch;
        }
        if ((err = mode->launch(args, s.stream)) != cudaSuccess) return fail("launching the filter kernel");
        cudaEventRecord(s.filtered, s.stream);

        s.downloads = !target.toDevice;
        s.outRow0 = a;
        s.outRows = b - a;
        if (s.downloads) {
            void* to = outputPinned ? static_cast<void*>(target.host.row<unsigned char>(a)) : s.dstStage.get();
            const std::size_t toPitch = outputPinned ? target.host.stride : outRowBytes;
            if ((err = cudaMemcpy2DAsync(to, toPitch, s.dst.get(), outPitch, outRowBytes, b - a, cudaMemcpyDeviceToHost,
                                         s.stream)) != cudaSuccess)
                return fail("downloading");
        }
        if ((err = cudaEventRecord(s.done, s.stream)) != cudaSuccess) return fail("recording an event");
        s.busy = true;
    }
    for (Slot& s : c.slots)
        if ((err = collect(s, target, outputPinned, outRowBytes, totals)) != cudaSuccess) return fail("filtering");
    if ((err = cudaGetLastError()) != cudaSuccess) return fail("filtering");

    timing.uploadMs = totals.upload;
    timing.kernelMs = totals.kernel;
    if (!target.toDevice) timing.downloadMs = totals.download;
    if (!inputPinned || (!target.toDevice && !outputPinned)) timing.hostPrepMs = totals.host;
    timing.totalMs = msSince(wallStart);
    return {};
}

}  // namespace fs::gpu
