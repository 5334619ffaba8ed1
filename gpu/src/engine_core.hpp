#pragma once
// Internal: what fs::gpu::Engine owns, for the GPU side's own clients (the
// backend, batch and pipeline runners, the tuner, GL interop). Everything
// below the settings is used only inside a DeviceSession.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "device_buffer.hpp"
#include "fs/gpu/engine.hpp"
#include "launch.hpp"
#include "staging_pool.hpp"
#include "tuning.hpp"

namespace fs::gpu {

// cudaErrorNoKernelImageForDevice when the current device can run none of
// this build's kernels (build_architectures.cu).
cudaError_t probeKernelImage();

// Piece i + 3's upload follows piece i's download on their stream; with a
// kernel shorter than a piece's copy, that download ends while upload i + 2
// still runs, so three slots keep both copy directions busy (two would stall
// every upload by a kernel time). The batch runner keeps four images in flight.
constexpr int kPipelineSlots = 3;
constexpr int kEngineStreams = 4;
constexpr std::size_t kPitchAlign = 512;  // >= texturePitchAlignment on every CUDA GPU so far

struct PinnedAllocator {
    cudaError_t lastError = cudaSuccess;
    void* allocate(std::size_t bytes) {
        void* p = nullptr;
        lastError = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
        return lastError == cudaSuccess ? p : nullptr;
    }
    void free(void* p) { cudaFreeHost(p); }
};
using PinnedStaging = StagingPool<PinnedAllocator>;

struct ResidentImage {
    DeviceBuffer pixels;
    std::size_t pitch = 0;
    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;
    DeviceView view() const { return {pixels.data(), pitch, width, height, channels, depth}; }
};

struct Engine::Impl {
    std::recursive_mutex mutex;
    // Settings: read by runs, set by tests and the benchmark at any time.
    std::atomic<std::size_t> budget{0};  // 0: 80% of the free memory at run time
    std::atomic<int> pipelineRows{0};    // 0: automaticPieceCount
    std::atomic<bool> failAllocations{false};

    // Set once by init(), read-only afterwards (no lock needed).
    std::once_flag initOnce;
    std::string unavailable, name;
    cudaStream_t streams[kEngineStreams] = {};

    // Under `mutex` (a DeviceSession) from here on.
    DeviceBuffer pieceSrc[kPipelineSlots], pieceDst[kPipelineSlots];
    DeviceBuffer batchIn[kEngineStreams], batchOut[kEngineStreams];  // a batch slot's input and output arena
    std::vector<PieceEvents> pieceEvents;  // grown to the most pieces a run timed, kept for later runs
    cudaEvent_t runStart = nullptr;        // a pipelined run's time origin for its kernels' intervals
    DeviceBuffer weights;                  // the global mode's weights, kMaxKernels x 63 x 63 floats
    DeviceBuffer scratch;                  // a resident run's output before its download
    DeviceBuffer displayScratch;           // GL interop: a result before its conversion to BGRA8
    DeviceBuffer inputCopy;                // a caller's device input the kernels cannot read in place
    cudaEvent_t producerDone = nullptr;    // a caller's device input is written (Engine::run on DeviceInput)
    ModeWorkspaces workspaces;             // per mode and stream: the fft mode's plans and tiles
    PinnedStaging staging;
    std::map<std::uint64_t, ResidentImage> resident;
    std::uint64_t nextHandle = 1;
    int sessions = 0;  // DeviceSessions alive (nested ones on the lock's thread count too)

    // Finds the device and creates the streams, once; why it is unusable, else empty.
    const std::string& init();
    cudaError_t reserveEvents(int count);
    void trimCaches();
    std::size_t cachedBytes() const;

private:
    std::string findDevice();
};

// Exclusive use of the device while alive. The lock is recursive: the batch
// runner hands images too large for its slots to the backend's run while it
// holds the device. Device memory, streams and waits of every GPU client go
// through a session; it drains the streams it handed out before it ends, so
// no work outlives it, whichever way its owner returns.
class DeviceSession {
public:
    explicit DeviceSession(Engine& engine = Engine::instance());
    ~DeviceSession();
    DeviceSession(const DeviceSession&) = delete;
    DeviceSession& operator=(const DeviceSession&) = delete;

    // Why the device cannot be used; empty when it can.
    const std::string& problem() const { return problem_; }
    Engine::Impl& core() { return core_; }
    // The engine's stream i (0 .. kEngineStreams - 1), drained when the session ends.
    cudaStream_t stream(int i) const {
        used_ |= 1u << i;
        return core_.streams[i];
    }
    PinnedStaging& staging() { return core_.staging; }

    // buffer.reserve(bytes) for this session's own device memory (pipeline
    // images, labelling and layer buffers, interop scratch). Out of memory,
    // an outermost session drops the engine's caches (Impl::trimCaches) and
    // tries once more; a nested one leaves them, its caller may be using them.
    cudaError_t reserve(DeviceBuffer& buffer, std::size_t bytes);

    // f's weights to the engine's device buffer (global mode) and to `mode`'s
    // constant memory, in `stream`'s order; sets f.deviceWeights.
    cudaError_t uploadWeights(const ModeImpl& mode, PreparedFilter& f, cudaStream_t stream);

    // A resolved launch over the whole of `in` into `dst` (in.height rows of
    // dstPitch bytes at the spec's output depth), enqueued on `stream` after
    // uploadWeights; `split` and `filtered` as in launchResolved.
    std::string launchWhole(ResolvedLaunch& resolved, const FilterSpec& spec, const DeviceView& in, unsigned char* dst,
                            std::size_t dstPitch, cudaStream_t stream, cudaEvent_t split = nullptr,
                            cudaEvent_t filtered = nullptr);

    // `spec` in mode `mode`'s default configuration (not the tuned one: batch
    // and pipeline runs stay as they were timed) over a device image. A
    // refusal (unknown mode, unsupported filter) sets `refusal`; device
    // trouble does not.
    std::string convolve(const FilterSpec& spec, const DeviceView& in, const std::string& mode, unsigned char* dst,
                         std::size_t dstPitch, cudaStream_t stream, Refusal* refusal = nullptr);

private:
    std::unique_lock<std::recursive_mutex> lock_;
    Engine::Impl& core_;
    std::string problem_;
    mutable unsigned used_ = 0;  // bit i: stream(i) was handed out
};

// The pipelined run of a host image (piece_run.cpp), inside a session.
std::string runPieces(DeviceSession& session, const FilterSpec& spec, ConstImageView input, const std::string& mode,
                      const RunTarget& target, TimingRecord& timing, const LaunchConfig& launch);

// Empty when `target` can take a width x height x channels result of
// `outDepth`, else why not.
std::string checkRunTarget(const RunTarget& target, int width, int height, int channels, Depth outDepth);

struct ResolvedLaunch;

// Waves the plan's whole-image grid makes on the current device: its blocks
// over the blocks all multiprocessors hold at once. 0 when unknown.
double gridWaves(const ResolvedLaunch& resolved);

// Waves of its grid every piece keeps (automaticPieceCount).
constexpr double kMinPieceWaves = 4;

// Pieces an image of `imageBytes` input bytes goes in when no row count is
// set, before the memory budget asks for more (1: the whole image at once).
// `imageWaves` (gridWaves; 0: unknown) caps them so that each piece's grid
// keeps kMinPieceWaves waves.
int automaticPieceCount(std::size_t imageBytes, double imageWaves);

}  // namespace fs::gpu
