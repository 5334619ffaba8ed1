// fs::gpu::Engine: the device, its lock, streams, cached buffers, weights
// uploads and device-resident images.
#include "engine_core.hpp"

#include <algorithm>
#include <exception>
#include <functional>

#include "device_list.hpp"
#include "driver_check.hpp"
#include "fs/backend.hpp"
#include "fs/gpu/cuda_options.hpp"

namespace fs::gpu {

// ---- Engine::Impl -----------------------------------------------------------

const std::string& Engine::Impl::init() {
    std::call_once(initOnce, [this] { unavailable = findDevice(); });
    return unavailable;
}

std::string Engine::Impl::findDevice() {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return deviceCountProblem(err);
    }
    if (count == 0) return "no CUDA device found";
    cudaDeviceProp p{};
    if ((err = cudaGetDeviceProperties(&p, 0)) != cudaSuccess) return cudaMessage("CUDA device 0", err);
    name = p.name;
    // Before any launch: a GPU this build has no code for would fail each
    // one with "no kernel image" / "invalid device function".
    if (err = probeKernelImage(); err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
        cudaGetLastError();
        return noKernelImageReason(p.name, p.major * 10 + p.minor, builtArchitectures());
    } else if (err != cudaSuccess) {
        return cudaMessage("CUDA device 0", err);
    }
    for (cudaStream_t& s : streams)
        if ((err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) != cudaSuccess)
            return cudaMessage("creating CUDA streams", err);
    return {};
}

cudaError_t Engine::Impl::reserveEvents(int count) {
    if (!runStart)
        if (const cudaError_t err = cudaEventCreate(&runStart); err != cudaSuccess) return err;
    while (static_cast<int>(pieceEvents.size()) < count) {
        PieceEvents e;
        if (const cudaError_t err = e.create(); err != cudaSuccess) return err;
        pieceEvents.push_back(e);
    }
    return cudaSuccess;
}

void Engine::Impl::trimCaches() {
    for (cudaStream_t s : streams)
        if (s) cudaStreamSynchronize(s);
    for (int i = 0; i < kPipelineSlots; ++i) pieceSrc[i].release(), pieceDst[i].release();
    for (int i = 0; i < kEngineStreams; ++i) batchIn[i].release(), batchOut[i].release();
    scratch.release();
    displayScratch.release();
    inputCopy.release();
    workspaces.releaseAll();
    staging.releaseAll();
}

std::size_t Engine::Impl::cachedBytes() const {
    std::size_t total = scratch.bytes() + displayScratch.bytes() + inputCopy.bytes() + weights.bytes() + staging.totalBytes() + workspaces.bytes();
    for (int i = 0; i < kPipelineSlots; ++i) total += pieceSrc[i].bytes() + pieceDst[i].bytes();
    for (int i = 0; i < kEngineStreams; ++i) total += batchIn[i].bytes() + batchOut[i].bytes();
    return total;
}

// ---- DeviceSession ----------------------------------------------------------

DeviceSession::DeviceSession(Engine& engine) : lock_(engine.impl().mutex), core_(engine.impl()) {
    ++core_.sessions;
    problem_ = core_.init();
}

DeviceSession::~DeviceSession() {
    for (int i = 0; i < kEngineStreams; ++i)
        if ((used_ & (1u << i)) && core_.streams[i] && cudaStreamSynchronize(core_.streams[i]) != cudaSuccess)
            cudaGetLastError();  // the owner has reported (or dropped) its run's error: the next session starts clean
    --core_.sessions;
}

cudaError_t DeviceSession::reserve(DeviceBuffer& buffer, std::size_t bytes) {
    cudaError_t err = buffer.reserve(bytes);
    if (err == cudaErrorMemoryAllocation && core_.sessions == 1) {
        cudaGetLastError();
        core_.trimCaches();
        err = buffer.reserve(bytes);
    }
    if (err != cudaSuccess) cudaGetLastError();
    return err;
}

cudaError_t DeviceSession::uploadWeights(const ModeImpl& mode, PreparedFilter& f, cudaStream_t stream) {
    cudaError_t err = core_.weights.reserve(kMaxKernels * kMaxKernelSize * kMaxKernelSize * sizeof(float));
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(core_.weights.get(), f.weights.data(), f.weights.size() * sizeof(float),
                              cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = mode.prepare(f, stream);
    f.deviceWeights = static_cast<const float*>(core_.weights.get());
    // The pageable weights are staged before cudaMemcpyAsync returns, so `f` may go once this returns.
    return err;
}

std::string DeviceSession::launchWhole(ResolvedLaunch& resolved, const FilterSpec& spec, const DeviceView& in,
                                       unsigned char* dst, std::size_t dstPitch, cudaStream_t stream,
                                       cudaEvent_t split, cudaEvent_t filtered) {
    LaunchArgs args;
    args.workspaces = &core_.workspaces;
    args.geom = wholeImageGeom(in.data, in.pitch, in.width, in.height);
    args.geom.dst = dst;
    args.geom.dstPitch = dstPitch;
    args.geom.border = spec.border.mode;
    args.geom.borderValue = spec.border.value;
    if (const cudaError_t err = launchResolved(resolved, args, stream, split, filtered); err != cudaSuccess)
        return cudaMessage(std::string("mode ") + resolved.mode->id, err);
    return {};
}

std::string DeviceSession::convolve(const FilterSpec& spec, const DeviceView& in, const std::string& mode,
                                    unsigned char* dst, std::size_t dstPitch, cudaStream_t stream, Refusal* refusal) {
    ResolvedLaunch resolved;
    Refusal why = resolveMode(spec, in.depth, in.channels, in.width, in.height, mode, resolved);
    if (why.ok()) {
        // Planned here too, so a shape the mode refuses is this call's refusal, not device trouble.
        if (Refusal planned = resolved.mode->plan(resolved.filter, resolved.config, in.width, in.height, resolved.plan);
            !planned.ok())
            why = {planned.reason, std::string("mode ") + resolved.mode->id + ", " + resolved.config.toString() + ": " +
                                       planned.message};
    }
    if (!why.ok()) {
        std::string text = why.message;
        if (refusal) *refusal = std::move(why);
        return text;
    }
    if (const cudaError_t err = uploadWeights(*resolved.mode, resolved.filter, stream); err != cudaSuccess)
        return cudaMessage("uploading the weights", err);
    return launchWhole(resolved, spec, in, dst, dstPitch, stream);
}

// ---- Engine -----------------------------------------------------------------

namespace {

// Empty when `p` is memory on the engine's device (device 0), else why not.
std::string onEngineDevice(const void* p, const char* what) {
    cudaPointerAttributes a{};
    if (const cudaError_t err = cudaPointerGetAttributes(&a, p); err != cudaSuccess) {
        cudaGetLastError();
        return std::string(what) + ": not memory CUDA knows (" + cudaGetErrorName(err) + ")";
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return std::string(what) + ": host memory, not device memory";
    if (a.device != 0)
        return std::string(what) + " is on CUDA device " + std::to_string(a.device) +
               "; FilterStudio's engine runs on device 0";
    return {};
}

using InputStep = std::function<std::string(cudaStream_t, const PieceEvents&, DeviceView&)>;

// The whole of `in`, already on the device, through one launch into `target`
// on the session's stream 0. `prepare`, when given, runs first on that stream
// and may replace `in` (a device copy between e.start and e.launched, added
// to layoutMs); the resident and device-input runs differ only there.
std::string runWhole(DeviceSession& session, const FilterSpec& spec, DeviceView in, const std::string& mode,
                     const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch, const InputStep& prepare) {
    Engine::Impl& core = session.core();
    ResolvedLaunch resolved;
    if (Refusal why = resolveLaunch(spec, in.depth, in.channels, mode, launch, in.width, in.height, resolved); !why.ok())
        return why.message;
    timing.launch = resolved.plan.config.shortLabel();
    timing.kernel = resolved.plan.variant;
    const Depth outDepth = spec.outputDepth(in.depth);
    const std::size_t outRowBytes = depthBytes(outDepth) * in.channels * static_cast<std::size_t>(in.width);
    if (std::string why = checkRunTarget(target, in.width, in.height, in.channels, outDepth); !why.empty()) return why;

    const cudaStream_t s = session.stream(0);
    cudaError_t err = core.reserveEvents(1);
    if (err != cudaSuccess) return cudaMessage("creating CUDA events", err);
    const PieceEvents& e = core.pieceEvents.front();
    const unsigned char* original = in.data;
    if (prepare)
        if (std::string why = prepare(s, e, in); !why.empty()) return why;
    const bool copiedInput = in.data != original;
    unsigned char* dst = nullptr;
    std::size_t dstPitch = 0;
    if (target.toDevice) {
        dst = static_cast<unsigned char*>(target.device.data);
        dstPitch = target.device.pitch;
    } else {
        dstPitch = alignUp(outRowBytes, kPitchAlign);
        if ((err = core.scratch.reserve(dstPitch * static_cast<std::size_t>(in.height))) != cudaSuccess) {
            cudaGetLastError();
            return cudaMessage("allocating the output on the device", err);
        }
        dst = core.scratch.data();
    }
    if ((err = session.uploadWeights(*resolved.mode, resolved.filter, s)) != cudaSuccess) {
        cudaGetLastError();
        return cudaMessage("uploading the weights", err);
    }
    cudaEventRecord(e.uploaded, s);
    if (std::string why = session.launchWhole(resolved, spec, in, dst, dstPitch, s, e.planesSplit, e.planesFiltered);
        !why.empty()) {
        cudaStreamSynchronize(s);
        cudaGetLastError();
        return why;
    }
    cudaEventRecord(e.filtered, s);
    if (!target.toDevice)
        err = cudaMemcpy2DAsync(target.host.data, target.host.stride, dst, dstPitch, outRowBytes,
                                static_cast<std::size_t>(in.height), cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = cudaEventRecord(e.done, s);
    if (err == cudaSuccess) err = cudaEventSynchronize(e.done);
    if (err != cudaSuccess) {
        cudaStreamSynchronize(s);
        cudaGetLastError();
        return cudaMessage("filtering", err);
    }
    if (resolved.planes > 1) {
        timing.kernelMs = e.planesKernelMs();
        timing.layoutMs = e.planesLayoutMs();
    } else {
        timing.kernelMs = e.kernelMs();
    }
    if (copiedInput) timing.layoutMs = timing.layoutMs.value_or(0.0) + elapsedMs(e.start, e.launched);
    if (!target.toDevice) timing.downloadMs = e.downloadMs();
    return {};
}

}  // namespace

Engine::Engine() : impl_(*new Impl) {}

Engine& Engine::instance() {
    // Never destroyed: its buffers would be freed after the CUDA runtime unloads at exit.
    static Engine& engine = *new Engine;
    return engine;
}

// Neither waits for the device: the UI asks these while long runs hold it.
std::string Engine::unavailableReason() { return impl_.init(); }

std::string Engine::deviceName() {
    impl_.init();
    return impl_.name;
}

std::string Engine::run(const FilterSpec& spec, ConstImageView input, const std::string& mode, const RunTarget& target,
                        TimingRecord& timing, const LaunchConfig& launch) {
    const auto wallStart = Clock::now();
    if (std::string problem = validateRun(spec, input); !problem.empty()) return problem;
    DeviceSession session(*this);
    if (!session.problem().empty()) return session.problem();
    std::string error = runPieces(session, spec, input, mode, target, timing, launch);
    if (error.empty()) timing.totalMs = msSince(wallStart);
    return error;
}

DeviceImageHandle Engine::upload(ConstImageView image, std::string& error, TimingRecord* timing) {
    const auto wallStart = Clock::now();
    error = validateImage(image);
    if (!error.empty()) return {};
    DeviceSession session(*this);
    if (!(error = session.problem()).empty()) return {};
    ResidentImage r;
    r.width = image.width, r.height = image.height, r.channels = image.channels, r.depth = image.depth;
    const std::size_t rowBytes = image.rowBytes();
    r.pitch = alignUp(rowBytes, kPitchAlign);
    // Under memory pressure the cached slot buffers and staging go first.
    cudaError_t err = session.reserve(r.pixels, r.pitch * static_cast<std::size_t>(image.height));
    if (err != cudaSuccess) {
        error = cudaMessage("keeping the image on the device", err);
        return {};
    }
    const cudaStream_t s = session.stream(0);
    if ((err = impl_.reserveEvents(1)) != cudaSuccess) {
        error = cudaMessage("creating CUDA events", err);
        return {};
    }
    const PieceEvents& e = impl_.pieceEvents.front();
    cudaEventRecord(e.start, s);
    err = cudaMemcpy2DAsync(r.pixels.get(), r.pitch, image.data, image.stride, rowBytes,
                            static_cast<std::size_t>(image.height), cudaMemcpyHostToDevice, s);
    cudaEventRecord(e.uploaded, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) {
        cudaGetLastError();
        error = cudaMessage("uploading", err);
        return {};
    }
    if (timing) {
        timing->uploadMs = e.uploadMs();
        timing->totalMs = msSince(wallStart);
    }
    const DeviceImageHandle handle{impl_.nextHandle++};
    impl_.resident.emplace(handle.id, std::move(r));
    return handle;
}

std::string Engine::run(const FilterSpec& spec, DeviceImageHandle image, const std::string& mode,
                        const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch) {
    const auto wallStart = Clock::now();
    DeviceSession session(*this);
    if (!session.problem().empty()) return session.problem();
    const auto it = impl_.resident.find(image.id);
    if (it == impl_.resident.end()) return "no device image " + std::to_string(image.id) + " (released or never uploaded)";
    if (std::string why = validateSpec(spec); !why.empty()) return why;
    std::string error = runWhole(session, spec, it->second.view(), mode, target, timing, launch, {});
    if (error.empty()) timing.totalMs = msSince(wallStart);
    return error;
}

std::string Engine::run(const FilterSpec& spec, const DeviceInput& input, const std::string& mode,
                        const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch) {
    const auto wallStart = Clock::now();
    const std::size_t rowBytes = depthBytes(input.depth) * input.channels * static_cast<std::size_t>(input.width);
    if (std::string why = validateRun(spec, ConstImageView(input.data, input.width, input.height, input.channels,
                                                           input.depth, input.pitch));
        !why.empty())
        return "device input: " + why;
    if (input.pitch % depthBytes(input.depth) != 0 ||
        reinterpret_cast<std::uintptr_t>(input.data) % depthBytes(input.depth) != 0)
        return "device input: pointer or pitch not a multiple of the sample size (" +
               std::to_string(depthBytes(input.depth)) + " bytes)";
    DeviceSession session(*this);
    if (!session.problem().empty()) return session.problem();
    if (std::string why = onEngineDevice(input.data, "device input"); !why.empty()) return why;
    if (target.toDevice)
        if (std::string why = onEngineDevice(target.device.data, "device output"); !why.empty()) return why;

    // Waits for the producer, then brings misaligned pixels into the engine's own buffer.
    auto prepare = [&](cudaStream_t s, const PieceEvents& e, DeviceView& in) -> std::string {
        cudaError_t err = cudaSuccess;
        if (input.producerStream != 0) {
            const cudaStream_t producer = input.producerStream == 1   ? cudaStreamLegacy
                                          : input.producerStream == 2 ? cudaStreamPerThread
                                                                      : reinterpret_cast<cudaStream_t>(input.producerStream);
            if (!impl_.producerDone) err = cudaEventCreateWithFlags(&impl_.producerDone, cudaEventDisableTiming);
            if (err == cudaSuccess) err = cudaEventRecord(impl_.producerDone, producer);
            if (err == cudaSuccess) err = cudaStreamWaitEvent(s, impl_.producerDone, 0);
            if (err != cudaSuccess) {
                cudaGetLastError();
                return cudaMessage("waiting for the device input's stream", err);
            }
        }
        // Texture reads need the device's pitch alignment; the modes are built and tested on kPitchAlign rows.
        if (reinterpret_cast<std::uintptr_t>(in.data) % kPitchAlign == 0 && in.pitch % kPitchAlign == 0) return {};
        const std::size_t pitch = alignUp(rowBytes, kPitchAlign);
        if ((err = session.reserve(impl_.inputCopy, pitch * static_cast<std::size_t>(in.height))) != cudaSuccess)
            return cudaMessage("aligning the device input", err);
        cudaEventRecord(e.start, s);
        err = cudaMemcpy2DAsync(impl_.inputCopy.data(), pitch, in.data, in.pitch, rowBytes,
                                static_cast<std::size_t>(in.height), cudaMemcpyDeviceToDevice, s);
        cudaEventRecord(e.launched, s);
        if (err != cudaSuccess) {
            cudaGetLastError();
            return cudaMessage("aligning the device input", err);
        }
        in.data = impl_.inputCopy.data();
        in.pitch = pitch;
        return {};
    };
    const DeviceView in{static_cast<const unsigned char*>(input.data), input.pitch, input.width, input.height,
                        input.channels, input.depth};
    std::string error = runWhole(session, spec, in, mode, target, timing, launch, prepare);
    if (error.empty()) timing.totalMs = msSince(wallStart);
    return error;
}

bool Engine::release(DeviceImageHandle image) {
    DeviceSession session(*this);
    const auto it = impl_.resident.find(image.id);
    if (it == impl_.resident.end()) return false;
    // A run on it has finished before the session was ours: free it now.
    impl_.resident.erase(it);
    return true;
}

std::optional<DeviceImageInfo> Engine::info(DeviceImageHandle image) {
    DeviceSession session(*this);
    const auto it = impl_.resident.find(image.id);
    if (it == impl_.resident.end()) return std::nullopt;
    const ResidentImage& r = it->second;
    return DeviceImageInfo{r.width, r.height, r.channels, r.depth};
}

std::size_t Engine::residentBytes() {
    DeviceSession session(*this);
    std::size_t total = 0;
    for (const auto& [id, r] : impl_.resident) total += r.pixels.bytes();
    return total;
}

int Engine::residentCount() {
    DeviceSession session(*this);
    return static_cast<int>(impl_.resident.size());
}

void Engine::trimCaches() {
    DeviceSession session(*this);
    impl_.trimCaches();
}

std::size_t Engine::cachedBytes() {
    DeviceSession session(*this);
    return impl_.cachedBytes();
}

// ---- Process-wide knobs (fs/gpu/cuda_options.hpp) ---------------------------

void setDeviceMemoryBudget(std::size_t bytes) { Engine::instance().impl().budget = bytes; }
std::size_t deviceMemoryBudget() { return Engine::instance().impl().budget; }
void setAllocationFailureForTesting(bool fail) { Engine::instance().impl().failAllocations = fail; }
bool deviceAllocationFailureForced() { return Engine::instance().impl().failAllocations; }
void setPipelineRows(int rows) { Engine::instance().impl().pipelineRows = std::max(0, rows); }

}  // namespace fs::gpu
