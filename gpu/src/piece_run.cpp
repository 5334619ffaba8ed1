// The engine's run of a host image: pinned staging and device buffers reused
// across runs, the pipeline slots' copies each on its own stream, every
// kernel on one more stream, CUDA events per piece. Each slot's stream orders
// its pieces (upload, wait for its kernel, download, the next piece's upload
// ...), and the kernel stream waits for each upload, so the host waits before
// reusing a slot only where it rewrites or reads that slot's pinned staging
// itself (pageable images). A kernel's events sit on the kernel stream, so its
// time leaves out the hand-over from the copy that fed it.
// A cancelled run (fs/run_control.hpp) enqueues no further piece, lets the
// pieces in flight finish and returns kRunCancelled. The upload, kernel and
// download times reported are how long the device ran any piece's copy or
// kernel of that kind (the union of their intervals): the slots' copies share
// one copy engine each way and would count twice if added up.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine_core.hpp"
#include "fs/run_control.hpp"

namespace fs::gpu {
namespace {

// Pieces timed with their own events. Runs with more (strips under a small
// memory budget) reuse them after adding up the older piece's times.
constexpr int kTimedPieces = 256;

// How an image is cut into pieces and what the host stages.
struct PieceLayout {
    int width = 0, height = 0, ry = 0;
    std::size_t inRowBytes = 0, outRowBytes = 0, inPitch = 0, outPitch = 0;
    int pieceRows = 0, pieces = 0, slotsUsed = 0, timedPieces = 0;
    bool stagesInput = false, stagesOutput = false;  // pageable images go through pinned staging
};

// Source rows a piece reads: [a - ry, b + ry) clipped to the image, except
// with wrap, where they continue across the top/bottom edge. At most two runs
// of consecutive image rows (two only when wrapping).
struct SourceRows {
    int rowBase = 0, srcRows = 0;
    struct Run {
        int imageRow, bufferRow, rows;
    } runs[2];
};

SourceRows sourceRowsFor(int a, int b, int ry, int height, BorderMode border) {
    SourceRows s;
    s.srcRows = height;
    if (b - a + 2 * ry < height) {
        if (border == BorderMode::Wrap) {
            s.rowBase = ((a - ry) % height + height) % height;
            s.srcRows = b - a + 2 * ry;
        } else {
            s.rowBase = std::max(0, a - ry);
            s.srcRows = std::min(height, b + ry) - s.rowBase;
        }
    }
    const int firstRun = std::min(s.srcRows, height - s.rowBase);
    s.runs[0] = {s.rowBase, 0, firstRun};
    s.runs[1] = {0, firstRun, s.srcRows - firstRun};
    return s;
}

struct Totals {
    double layout = 0, host = 0;
    // Each piece's intervals, in ms from the run's start event.
    std::vector<std::pair<double, double>> uploads, kernels, downloads;
};

class PieceRun {
public:
    PieceRun(DeviceSession& session, const FilterSpec& spec, ConstImageView input, const RunTarget& target,
             ResolvedLaunch& resolved)
        : session_(session), core_(session.core()), spec_(spec), input_(input), target_(target), resolved_(resolved),
          control_(currentRunControl()) {}

    std::string run(TimingRecord& timing) {
        if (std::string why = layOut(); !why.empty()) return why;
        if (std::string why = reserve(); !why.empty()) return why;
        if ((err_ = cudaEventRecord(core_.runStart, session_.stream(0))) != cudaSuccess) return fail("recording an event");
        for (int piece = 0; piece < l_.pieces; ++piece) {
            if (control_) {
                control_->setProgress(static_cast<double>(piece) / l_.pieces);
                if (control_->cancelled()) return stop();
            }
            if (std::string why = enqueue(piece); !why.empty()) return why;
        }
        if (std::string why = finish(); !why.empty()) return why;
        if (control_) control_->setProgress(1.0);
        timing.uploadMs = coveredMs(std::move(totals_.uploads));
        timing.kernelMs = coveredMs(std::move(totals_.kernels));
        if (resolved_.planes > 1) timing.layoutMs = totals_.layout;
        if (!target_.toDevice) timing.downloadMs = coveredMs(std::move(totals_.downloads));
        if (l_.stagesInput || l_.stagesOutput) timing.hostPrepMs = totals_.host;
        return {};
    }

private:
    // Piece height: the engine's row setting, else automaticPieceCount; then
    // smaller pieces until every slot's buffers fit the memory budget (strips).
    std::string layOut() {
        const PreparedFilter& f = resolved_.filter;
        l_.width = input_.width;
        l_.height = input_.height;
        l_.ry = f.math.kh / 2;
        const Depth outDepth = spec_.outputDepth(input_.depth);
        l_.inRowBytes = input_.rowBytes();
        l_.outRowBytes = depthBytes(outDepth) * input_.channels * static_cast<std::size_t>(l_.width);
        l_.inPitch = alignUp(l_.inRowBytes, kPitchAlign);
        l_.outPitch = alignUp(l_.outRowBytes, kPitchAlign);

        const int autoPieces = automaticPieceCount(l_.inRowBytes * l_.height, gridWaves(resolved_));
        const int rowsSetting = core_.pipelineRows;
        int pieceRows = rowsSetting > 0 ? rowsSetting : (l_.height + autoPieces - 1) / autoPieces;
        pieceRows = std::min(pieceRows, l_.height);
        std::size_t budget = core_.budget;
        if (budget == 0) {
            std::size_t freeBytes = 0, totalBytes = 0;
            if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) cudaGetLastError();
            budget = freeBytes / 10 * 8;
        }
        const std::size_t outPerRow = target_.toDevice ? 0 : l_.outPitch;
        // The planar layout holds each piece twice: as uploaded and as planes.
        const std::size_t copies = resolved_.planes > 1 ? 2 : 1;
        auto slotBytes = [&](int rows) {
            return copies * (static_cast<std::size_t>(std::min(l_.height, rows + 2 * l_.ry)) * l_.inPitch +
                             rows * std::max(outPerRow, resolved_.planes > 1 ? l_.outPitch : 0));
        };
        while (pieceRows > 1 && kPipelineSlots * slotBytes(pieceRows) > budget)
            pieceRows = std::max(1, pieceRows * 3 / 4);
        if (kPipelineSlots * slotBytes(pieceRows) > budget)
            return "image rows too large for the device memory budget (" + std::to_string(budget >> 20) + " MB)";
        l_.pieceRows = pieceRows;
        l_.pieces = (l_.height + pieceRows - 1) / pieceRows;
        l_.slotsUsed = std::min(kPipelineSlots, l_.pieces);
        l_.timedPieces = std::min(kTimedPieces, l_.pieces);
        l_.stagesInput = !isPinned(input_.data);
        l_.stagesOutput = !target_.toDevice && !isPinned(target_.host.data);
        return {};
    }

    // Cancelled: the pieces already enqueued finish (their slots and staging
    // are then free for the next run); the output is left incomplete.
    std::string stop() {
        for (int i = 0; i < l_.slotsUsed; ++i)
            if ((err_ = cudaStreamSynchronize(session_.stream(i))) != cudaSuccess) return fail("filtering");
        if ((err_ = cudaStreamSynchronize(kernelStream())) != cudaSuccess) return fail("filtering");
        return kRunCancelled;
    }

    static_assert(kPipelineSlots < kEngineStreams, "the kernels need a stream of their own");
    cudaStream_t kernelStream() const { return session_.stream(kPipelineSlots); }

    std::string fail(const char* what) {
        for (int i = 0; i <= kPipelineSlots; ++i) cudaStreamSynchronize(session_.stream(i));
        cudaGetLastError();  // clear non-sticky errors so the next run starts clean
        return cudaMessage(what, err_);
    }

    // Events, weights and every used slot's buffers.
    std::string reserve() {
        if ((err_ = core_.reserveEvents(l_.timedPieces)) != cudaSuccess) return fail("creating CUDA events");
        const cudaStream_t first = session_.stream(0);
        if ((err_ = session_.uploadWeights(*resolved_.mode, resolved_.filter, first)) != cudaSuccess ||
            (err_ = cudaStreamSynchronize(first)) != cudaSuccess)
            return fail("uploading the weights");
        const std::size_t srcRows = static_cast<std::size_t>(std::min(l_.height, l_.pieceRows + 2 * l_.ry));
        for (int i = 0; i < l_.slotsUsed; ++i) {
            if ((err_ = core_.pieceSrc[i].reserve(srcRows * l_.inPitch)) != cudaSuccess)
                return fail("allocating device memory");
            if (!target_.toDevice && (err_ = core_.pieceDst[i].reserve(l_.pieceRows * l_.outPitch)) != cudaSuccess)
                return fail("allocating device memory");
            if (l_.stagesInput && !reserveStage(i, StagingSide::In, srcRows * l_.inRowBytes))
                return fail("allocating pinned host memory");
            if (l_.stagesOutput && !reserveStage(i, StagingSide::Out, l_.pieceRows * l_.outRowBytes))
                return fail("allocating pinned host memory");
        }
        return {};
    }

    bool reserveStage(int slot, StagingSide side, std::size_t bytes) {
        if (session_.staging().reserve(stagingKey(StagingUser::Pipeline, slot, side), bytes)) return true;
        err_ = session_.staging().allocator().lastError;
        return false;
    }
    unsigned char* stage(int slot, StagingSide side) {
        return session_.staging().data(stagingKey(StagingUser::Pipeline, slot, side));
    }

    PieceEvents& eventsOf(int piece) { return core_.pieceEvents[piece % l_.timedPieces]; }

    // Waits for a piece and adds its event times.
    cudaError_t addTimes(int piece) {
        const PieceEvents& e = eventsOf(piece);
        if (const cudaError_t waited = cudaEventSynchronize(e.done); waited != cudaSuccess) return waited;
        const auto since = [&](cudaEvent_t event) { return elapsedMs(core_.runStart, event); };
        const bool planar = resolved_.planes > 1;
        totals_.uploads.emplace_back(since(e.start), since(e.uploaded));
        totals_.kernels.emplace_back(since(planar ? e.planesSplit : e.launched),
                                     since(planar ? e.planesFiltered : e.filtered));
        if (planar) totals_.layout += elapsedMs(e.launched, e.planesSplit) + elapsedMs(e.planesFiltered, e.filtered);
        if (!target_.toDevice) totals_.downloads.emplace_back(since(e.filtered), since(e.done));
        return cudaSuccess;
    }

    // Pageable output: waits for a piece's download and copies its rows from the slot's stage.
    cudaError_t copyOut(int piece) {
        if (const cudaError_t waited = cudaEventSynchronize(eventsOf(piece).done); waited != cudaSuccess) return waited;
        const auto t0 = Clock::now();
        const unsigned char* from = stage(piece % l_.slotsUsed, StagingSide::Out);
        const int a = piece * l_.pieceRows, b = std::min(l_.height, a + l_.pieceRows);
        for (int r = a; r < b; ++r)
            std::memcpy(target_.host.row<unsigned char>(r), from + (r - a) * l_.outRowBytes, l_.outRowBytes);
        totals_.host += msSince(t0);
        return cudaSuccess;
    }

    std::string enqueue(int piece) {
        const int slot = piece % l_.slotsUsed;
        const cudaStream_t stream = session_.stream(slot);
        if (piece >= l_.slotsUsed) {
            // The slot's last piece must be done with the staging the host is about to reuse.
            const int previous = piece - l_.slotsUsed;
            if (l_.stagesOutput) err_ = copyOut(previous);
            else if (l_.stagesInput) err_ = cudaEventSynchronize(eventsOf(previous).uploaded);
            if (err_ != cudaSuccess) return fail("filtering");
        }
        if (piece >= l_.timedPieces && (err_ = addTimes(piece - l_.timedPieces)) != cudaSuccess)
            return fail("filtering");
        const PieceEvents& e = eventsOf(piece);
        const int a = piece * l_.pieceRows, b = std::min(l_.height, a + l_.pieceRows);
        const SourceRows rows = sourceRowsFor(a, b, l_.ry, l_.height, spec_.border.mode);
        unsigned char* inStage = l_.stagesInput ? stage(slot, StagingSide::In) : nullptr;
        DeviceBuffer& src = core_.pieceSrc[slot];

        if (l_.stagesInput) {
            const auto t0 = Clock::now();
            for (const auto& run : rows.runs)
                for (int r = 0; r < run.rows; ++r)
                    std::memcpy(inStage + (run.bufferRow + r) * l_.inRowBytes, input_.row<unsigned char>(run.imageRow + r),
                                l_.inRowBytes);
            totals_.host += msSince(t0);
        }

        cudaEventRecord(e.start, stream);
        for (const auto& run : rows.runs) {
            if (run.rows == 0) continue;
            const void* from = l_.stagesInput ? static_cast<const void*>(inStage + run.bufferRow * l_.inRowBytes)
                                              : static_cast<const void*>(input_.row<unsigned char>(run.imageRow));
            const std::size_t fromPitch = l_.stagesInput ? l_.inRowBytes : input_.stride;
            if ((err_ = cudaMemcpy2DAsync(src.data() + run.bufferRow * l_.inPitch, l_.inPitch, from, fromPitch,
                                          l_.inRowBytes, run.rows, cudaMemcpyHostToDevice, stream)) != cudaSuccess)
                return fail("uploading");
        }
        cudaEventRecord(e.uploaded, stream);
        const cudaStream_t kernels = kernelStream();
        if ((err_ = cudaStreamWaitEvent(kernels, e.uploaded)) != cudaSuccess) return fail("ordering the streams");
        cudaEventRecord(e.launched, kernels);

        LaunchArgs args;
        args.workspaces = &core_.workspaces;
        KernelGeom& g = args.geom;
        g.src = src.data();
        g.srcPitch = l_.inPitch;
        g.width = l_.width;
        g.imageHeight = l_.height;
        g.rowBase = rows.rowBase;
        g.srcRows = rows.srcRows;
        g.outRow0 = a;
        g.outRows = b - a;
        g.border = spec_.border.mode;
        g.borderValue = spec_.border.value;
        if (target_.toDevice) {
            g.dst = static_cast<unsigned char*>(target_.device.data) + static_cast<std::size_t>(a) * target_.device.pitch;
            g.dstPitch = target_.device.pitch;
        } else {
            g.dst = core_.pieceDst[slot].data();
            g.dstPitch = l_.outPitch;
        }
        if ((err_ = launchResolved(resolved_, args, kernels, e.planesSplit, e.planesFiltered)) != cudaSuccess)
            return fail("launching the filter kernel");
        cudaEventRecord(e.filtered, kernels);
        if ((err_ = cudaStreamWaitEvent(stream, e.filtered)) != cudaSuccess) return fail("ordering the streams");

        if (!target_.toDevice) {
            void* to = l_.stagesOutput ? static_cast<void*>(stage(slot, StagingSide::Out))
                                       : static_cast<void*>(target_.host.row<unsigned char>(a));
            const std::size_t toPitch = l_.stagesOutput ? l_.outRowBytes : target_.host.stride;
            if ((err_ = cudaMemcpy2DAsync(to, toPitch, core_.pieceDst[slot].get(), l_.outPitch, l_.outRowBytes, b - a,
                                          cudaMemcpyDeviceToHost, stream)) != cudaSuccess)
                return fail("downloading");
        }
        if ((err_ = cudaEventRecord(e.done, stream)) != cudaSuccess) return fail("recording an event");
        return {};
    }

    std::string finish() {
        if (l_.stagesOutput)
            for (int piece = l_.pieces - l_.slotsUsed; piece < l_.pieces; ++piece)
                if ((err_ = copyOut(piece)) != cudaSuccess) return fail("filtering");
        // The last timedPieces pieces include every slot's last one: afterwards all streams are idle.
        for (int piece = l_.pieces - l_.timedPieces; piece < l_.pieces; ++piece)
            if ((err_ = addTimes(piece)) != cudaSuccess) return fail("filtering");
        if ((err_ = cudaGetLastError()) != cudaSuccess) return fail("filtering");
        return {};
    }

    DeviceSession& session_;
    Engine::Impl& core_;
    const FilterSpec& spec_;
    ConstImageView input_;
    const RunTarget& target_;
    ResolvedLaunch& resolved_;
    PieceLayout l_;
    Totals totals_;
    cudaError_t err_ = cudaSuccess;
    RunControl* control_;  // read on the calling thread, which runs the whole loop
};

}  // namespace

double gridWaves(const ResolvedLaunch& resolved) {
    const LaunchPlan& plan = resolved.plan;
    if (!plan.kernel) return 0;
    int device = 0, sms = 0, blocksPerSm = 0;
    const int threads = static_cast<int>(plan.block.x * plan.block.y * plan.block.z);
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, plan.kernel.address(), threads,
                                                      plan.sharedBytes) != cudaSuccess ||
        sms == 0 || blocksPerSm == 0) {
        cudaGetLastError();
        return 0;
    }
    const double blocks = static_cast<double>(plan.grid.x) * plan.grid.y * plan.grid.z * resolved.planes;
    return blocks / (static_cast<double>(sms) * blocksPerSm);
}

int automaticPieceCount(std::size_t imageBytes, double imageWaves) {
    // Overlap model for n pieces: T = U/n + (n-1) * P + K/n + D/n, where U, K,
    // D are the whole image's upload, kernel and download and P one piece's
    // upload and download running at once (PCIe duplex rate). Filling and
    // draining (the first upload, the last kernel and download) shrink as 1/n;
    // each piece adds a few microseconds of copy and launch setup and a
    // shorter kernel grid. On an 8K RGBA8 frame the overlap improves up to
    // about 12 pieces; past 12 the per-piece cost wins (docs/performance.md).
    // Each piece's kernel also pays a launch and a last wave that runs part
    // empty: the fewer waves a piece's grid holds, the more of its kernel
    // time that is. Each piece keeps kMinPieceWaves waves of the whole
    // image's grid (below that, one piece), which trades some of the copies'
    // overlap for kernel time near the whole image's (docs/performance.md).
    constexpr std::size_t kWholeImageBytes = 8u << 20;  // below this one piece: overlap would save too little
    constexpr std::size_t kMinPieceBytes = 4u << 20;    // keeps per-piece setup small against the copy
    constexpr int kMaxPieces = 12;
    if (imageBytes <= kWholeImageBytes) return 1;
    int pieces = static_cast<int>(std::clamp<std::size_t>(imageBytes / kMinPieceBytes, 2, kMaxPieces));
    if (imageWaves > 0) pieces = std::clamp(static_cast<int>(imageWaves / kMinPieceWaves), 1, pieces);
    return pieces;
}

std::string checkRunTarget(const RunTarget& target, int width, int height, int channels, Depth outDepth) {
    const std::size_t rowBytes = depthBytes(outDepth) * channels * static_cast<std::size_t>(width);
    if (target.toDevice) {
        // 4-channel pixels are stored as one vector, others sample by sample.
        const std::size_t align = depthBytes(outDepth) * (channels == 4 ? 4 : 1);
        if (!target.device.data || target.device.pitch < rowBytes || target.device.pitch % align != 0 ||
            reinterpret_cast<std::uintptr_t>(target.device.data) % align != 0)
            return "device output: null pointer, pitch smaller than a row (" + std::to_string(rowBytes) +
                   " bytes), or pointer/pitch not a multiple of " + std::to_string(align) + " bytes";
        return {};
    }
    const ImageView& h = target.host;
    if (!h.data || h.width != width || h.height != height || h.channels != channels || h.depth != outDepth ||
        h.stride < rowBytes)
        return "output image: expected " + std::to_string(width) + "x" + std::to_string(height) + "x" +
               std::to_string(channels) + " " + depthName(outDepth) + " with a stride of at least " +
               std::to_string(rowBytes) + " bytes";
    return {};
}

std::string runPieces(DeviceSession& session, const FilterSpec& spec, ConstImageView input, const std::string& mode,
                      const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch) {
    ResolvedLaunch resolved;
    if (Refusal why = resolveLaunch(spec, input.depth, input.channels, mode, launch, input.width, input.height, resolved);
        !why.ok())
        return why.message;
    timing.launch = resolved.plan.config.shortLabel();
    timing.kernel = resolved.plan.variant;
    if (std::string why = checkRunTarget(target, input.width, input.height, input.channels,
                                         spec.outputDepth(input.depth));
        !why.empty())
        return why;
    return PieceRun(session, spec, input, target, resolved).run(timing);
}

}  // namespace fs::gpu
