// The transfer pipeline: pinned staging buffers and device buffers reused
// across runs, three slots each with its own stream, CUDA events per piece.
// Each slot's stream orders its pieces (upload, kernel, download, the next
// piece's upload ...), so the host waits before reusing a slot only where it
// rewrites or reads that slot's pinned staging itself (pageable images).
#include "pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

#include "device_buffer.hpp"
#include "fs/gpu/cuda_options.hpp"
#include "launch.hpp"
#include "tuning.hpp"

namespace fs::gpu {
namespace {

// Piece i + 3's upload follows piece i's download on their stream; with a
// kernel shorter than a piece's copy, that download ends while upload i + 2
// still runs, so three slots keep both copy directions busy (two would stall
// every upload by a kernel time).
constexpr int kSlots = 3;
constexpr std::size_t kPitchAlign = 512;  // >= texturePitchAlignment on every CUDA GPU so far
// Pieces timed with their own events. Runs with more (strips under a small
// memory budget) reuse them after adding up the older piece's times.
constexpr int kTimedPieces = 256;

std::size_t g_budget = 0;
int g_pipelineRows = 0;
bool g_failAllocations = false;

std::string cudaMessage(const char* what, cudaError_t err) {
    // Said plainly first: the user's next step (a smaller image, the CPU) depends on it.
    const std::string prefix = err == cudaErrorMemoryAllocation ? "out of device memory: " : "";
    return prefix + what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Pieces i, i + kSlots, i + 2 * kSlots ... go through one slot.
struct Slot {
    cudaStream_t stream = nullptr;
    DeviceBuffer src, dst;
    PinnedBuffer srcStage, dstStage;
};

// One piece on its slot's stream: start, upload, uploaded, kernel, filtered, download, done.
struct PieceEvents {
    cudaEvent_t start = nullptr, uploaded = nullptr, filtered = nullptr, done = nullptr;
};

struct Context {
    std::mutex mutex;  // one run at a time: constant memory is process-wide
    std::string unavailable;
    std::string name;
    bool initialised = false;
    Slot slots[kSlots];
    std::vector<PieceEvents> events;  // grown to the most pieces a run timed, kept for later runs
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
        for (Slot& s : slots)
            if ((err = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking)) != cudaSuccess)
                return unavailable = cudaMessage("creating CUDA streams", err);
        return {};
    }

    cudaError_t reserveEvents(int count) {
        while (static_cast<int>(events.size()) < count) {
            PieceEvents e;
            cudaError_t err = cudaSuccess;
            for (cudaEvent_t* ev : {&e.start, &e.uploaded, &e.filtered, &e.done})
                if (err == cudaSuccess) err = cudaEventCreate(ev);
            if (err != cudaSuccess) {
                for (cudaEvent_t ev : {e.start, e.uploaded, e.filtered, e.done})
                    if (ev) cudaEventDestroy(ev);
                return err;
            }
            events.push_back(e);
        }
        return cudaSuccess;
    }
};

Context& context() {
    // Never destroyed: its buffers would be freed after the CUDA runtime unloads at exit.
    static Context& c = *new Context;
    return c;
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

}  // namespace

void setDeviceMemoryBudget(std::size_t bytes) { g_budget = bytes; }
std::size_t deviceMemoryBudget() { return g_budget; }
void setAllocationFailureForTesting(bool fail) { g_failAllocations = fail; }
bool deviceAllocationFailureForced() { return g_failAllocations; }
void setPipelineRows(int rows) { g_pipelineRows = std::max(0, rows); }

int automaticPieceCount(std::size_t imageBytes) {
    // Overlap model for n pieces: T = U/n + (n-1) * P + K/n + D/n, where U, K,
    // D are the whole image's upload, kernel and download and P one piece's
    // upload and download running at once (PCIe duplex rate). Filling and
    // draining (the first upload, the last kernel and download) shrink as 1/n;
    // each piece adds a few microseconds of copy and launch setup and a
    // shorter kernel grid. Measured on 8K RGBA8, past about 12 pieces the
    // per-piece cost wins (docs/performance.md).
    constexpr std::size_t kWholeImageBytes = 8u << 20;  // below this one piece: overlap would save < 0.2 ms
    constexpr std::size_t kMinPieceBytes = 4u << 20;    // keeps per-piece setup small against the copy
    constexpr int kMaxPieces = 12;
    if (imageBytes <= kWholeImageBytes) return 1;
    return static_cast<int>(std::clamp<std::size_t>(imageBytes / kMinPieceBytes, 2, kMaxPieces));
}

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

    // Piece height: setPipelineRows, else automaticPieceCount; then smaller
    // pieces until every slot's buffers fit the memory budget (strips).
    const int autoPieces = automaticPieceCount(inRowBytes * height);
    int pieceRows = g_pipelineRows > 0 ? g_pipelineRows : (height + autoPieces - 1) / autoPieces;
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
    const int slotsUsed = std::min(kSlots, pieces);
    const int timedPieces = std::min(kTimedPieces, pieces);

    const bool inputPinned = isPinned(input.data);
    const bool outputPinned = !target.toDevice && isPinned(target.host.data);
    // The host touches a slot's pinned staging only for pageable images.
    const bool stagesInput = !inputPinned;
    const bool stagesOutput = !target.toDevice && !outputPinned;
    cudaError_t err = cudaSuccess;
    auto fail = [&](const char* what) {
        for (Slot& s : c.slots) cudaStreamSynchronize(s.stream);
        cudaGetLastError();  // clear non-sticky errors so the next run starts clean
        return cudaMessage(what, err);
    };
    if ((err = c.reserveEvents(timedPieces)) != cudaSuccess) return fail("creating CUDA events");

    // Weights: to device memory (global mode) and the mode's own place.
    if ((err = c.weights.reserve(kMaxKernels * kMaxKernelSize * kMaxKernelSize * sizeof(float))) != cudaSuccess)
        return fail("allocating the weights");
    if ((err = cudaMemcpyAsync(c.weights.get(), f.weights.data(), f.weights.size() * sizeof(float),
                               cudaMemcpyHostToDevice, c.slots[0].stream)) != cudaSuccess ||
        (err = mode->prepare(f, c.slots[0].stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(c.slots[0].stream)) != cudaSuccess)
        return fail("uploading the weights");
    f.deviceWeights = static_cast<const float*>(c.weights.get());

    for (int i = 0; i < slotsUsed; ++i) {
        Slot& s = c.slots[i];
        const std::size_t srcRows = static_cast<std::size_t>(std::min(height, pieceRows + 2 * ry));
        if ((err = s.src.reserve(srcRows * inPitch)) != cudaSuccess) return fail("allocating device memory");
        if (!target.toDevice && (err = s.dst.reserve(pieceRows * outPitch)) != cudaSuccess)
            return fail("allocating device memory");
        if (stagesInput && (err = s.srcStage.reserve(srcRows * inRowBytes)) != cudaSuccess)
            return fail("allocating pinned host memory");
        if (stagesOutput && (err = s.dstStage.reserve(pieceRows * outRowBytes)) != cudaSuccess)
            return fail("allocating pinned host memory");
    }

    Totals totals;
    auto eventsOf = [&](int piece) -> PieceEvents& { return c.events[piece % timedPieces]; };
    // Waits for a piece and adds its event times.
    auto addTimes = [&](int piece) {
        const PieceEvents& e = eventsOf(piece);
        const cudaError_t waited = cudaEventSynchronize(e.done);
        if (waited != cudaSuccess) return waited;
        totals.upload += elapsedMs(e.start, e.uploaded);
        totals.kernel += elapsedMs(e.uploaded, e.filtered);
        if (!target.toDevice) totals.download += elapsedMs(e.filtered, e.done);
        return cudaSuccess;
    };
    // Pageable output: waits for a piece's download and copies its rows from the slot's stage.
    auto copyOut = [&](int piece) {
        const cudaError_t waited = cudaEventSynchronize(eventsOf(piece).done);
        if (waited != cudaSuccess) return waited;
        const auto t0 = Clock::now();
        const unsigned char* stage = c.slots[piece % slotsUsed].dstStage.data();
        const int a = piece * pieceRows, b = std::min(height, a + pieceRows);
        for (int r = a; r < b; ++r)
            std::memcpy(target.host.row<unsigned char>(r), stage + (r - a) * outRowBytes, outRowBytes);
        totals.host += msSince(t0);
        return cudaSuccess;
    };

    for (int piece = 0; piece < pieces; ++piece) {
        Slot& s = c.slots[piece % slotsUsed];
        if (piece >= slotsUsed) {
            // The slot's last piece must be done with the staging the host is about to reuse.
            const int previous = piece - slotsUsed;
            if (stagesOutput) err = copyOut(previous);
            else if (stagesInput) err = cudaEventSynchronize(eventsOf(previous).uploaded);
            if (err != cudaSuccess) return fail("filtering");
        }
        if (piece >= timedPieces && (err = addTimes(piece - timedPieces)) != cudaSuccess) return fail("filtering");
        const PieceEvents& e = eventsOf(piece);
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

        if (stagesInput) {
            const auto t0 = Clock::now();
            for (const auto& run : runs)
                for (int r = 0; r < run.rows; ++r)
                    std::memcpy(s.srcStage.data() + (run.bufferRow + r) * inRowBytes,
                                input.row<unsigned char>(run.imageRow + r), inRowBytes);
            totals.host += msSince(t0);
        }

        cudaEventRecord(e.start, s.stream);
        for (const auto& run : runs) {
            if (run.rows == 0) continue;
            const void* from = stagesInput ? static_cast<const void*>(s.srcStage.data() + run.bufferRow * inRowBytes)
                                           : static_cast<const void*>(input.row<unsigned char>(run.imageRow));
            const std::size_t fromPitch = stagesInput ? inRowBytes : input.stride;
            if ((err = cudaMemcpy2DAsync(s.src.data() + run.bufferRow * inPitch, inPitch, from, fromPitch, inRowBytes,
                                         run.rows, cudaMemcpyHostToDevice, s.stream)) != cudaSuccess)
                return fail("uploading");
        }
        cudaEventRecord(e.uploaded, s.stream);

        LaunchArgs args;
        args.filter = &f;
        args.config = config;
        KernelGeom& g = args.geom;
        g.src = s.src.data();
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
            g.dst = s.dst.data();
            g.dstPitch = outPitch;
        }
        if ((err = mode->launch(args, s.stream)) != cudaSuccess) return fail("launching the filter kernel");
        cudaEventRecord(e.filtered, s.stream);

        if (!target.toDevice) {
            void* to = stagesOutput ? s.dstStage.get() : static_cast<void*>(target.host.row<unsigned char>(a));
            const std::size_t toPitch = stagesOutput ? outRowBytes : target.host.stride;
            if ((err = cudaMemcpy2DAsync(to, toPitch, s.dst.get(), outPitch, outRowBytes, b - a, cudaMemcpyDeviceToHost,
                                         s.stream)) != cudaSuccess)
                return fail("downloading");
        }
        if ((err = cudaEventRecord(e.done, s.stream)) != cudaSuccess) return fail("recording an event");
    }
    if (stagesOutput)
        for (int piece = pieces - slotsUsed; piece < pieces; ++piece)
            if ((err = copyOut(piece)) != cudaSuccess) return fail("filtering");
    // The last timedPieces pieces include every slot's last one: afterwards all streams are idle.
    for (int piece = pieces - timedPieces; piece < pieces; ++piece)
        if ((err = addTimes(piece)) != cudaSuccess) return fail("filtering");
    if ((err = cudaGetLastError()) != cudaSuccess) return fail("filtering");

    timing.uploadMs = totals.upload;
    timing.kernelMs = totals.kernel;
    if (!target.toDevice) timing.downloadMs = totals.download;
    if (stagesInput || stagesOutput) timing.hostPrepMs = totals.host;
    timing.totalMs = msSince(wallStart);
    return {};
}

}  // namespace fs::gpu
