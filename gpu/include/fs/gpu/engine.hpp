#pragma once
// Plain C++ (no CUDA header): fs::gpu::Engine, the single owner of the CUDA
// device in this process. Every GPU client (the cuda backend's runs, the
// batch and pipeline runners, the autotuner, CUDA-GL interop) goes through
// it: one lock, its streams and pipeline slots, the pinned staging pool, the
// modes' constant-memory weights, event timing and error text. Runs from
// several threads are safe; they take turns on the device.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fs/filter_spec.hpp"
#include "fs/gpu/device_run.hpp"
#include "fs/image.hpp"
#include "fs/launch.hpp"
#include "fs/timing.hpp"

namespace fs::gpu {

// An image kept on the device by Engine::upload until Engine::release.
struct DeviceImageHandle {
    std::uint64_t id = 0;
    explicit operator bool() const { return id != 0; }
    friend bool operator==(DeviceImageHandle a, DeviceImageHandle b) { return a.id == b.id; }
};

// What a resident image holds.
struct DeviceImageInfo {
    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;
};

// Where a run's result goes: downloaded into a host image, or written into
// device memory the caller owns (a mapped OpenGL pixel buffer).
struct RunTarget {
    ImageView host;
    DeviceOutput device;
    bool toDevice = false;

    static RunTarget hostImage(ImageView image) {
        RunTarget t;
        t.host = image;
        return t;
    }
    static RunTarget deviceMemory(DeviceOutput output) {
        RunTarget t;
        t.device = output;
        t.toDevice = true;
        return t;
    }
};

// Pixels a caller owns on CUDA device 0 (a CuPy array, a torch tensor):
// `height` rows `pitch` bytes apart, `channels` interleaved samples of
// `depth` a pixel. producerStream is the stream whose work wrote them, as
// __cuda_array_interface__ v3 numbers it: 0 nothing to wait for, 1 the
// legacy default stream, 2 the per-thread default stream, else a
// cudaStream_t; the engine's stream waits for it before reading.
struct DeviceInput {
    const void* data = nullptr;
    std::size_t pitch = 0;
    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;
    std::uintptr_t producerStream = 0;
};

class Engine {
public:
    // The process's engine (never destroyed: its buffers would outlive the CUDA runtime at exit).
    static Engine& instance();

    // Empty when a CUDA device can be used, else why not.
    std::string unavailableReason();
    std::string deviceName();

    // `spec` in mode `mode` on a host image: uploaded in pieces with halos,
    // upload / kernel / download overlapped on the engine's slots (or strips
    // under the memory budget). Empty on success, else why not. timing gets
    // uploadMs, kernelMs, downloadMs (host targets), hostPrepMs, totalMs,
    // launch. Input or host output in pinned memory is transferred directly.
    std::string run(const FilterSpec& spec, ConstImageView input, const std::string& mode, const RunTarget& target,
                    TimingRecord& timing, const LaunchConfig& launch = {});

    // Device-resident images: uploaded once, filtered any number of times by
    // any mode, kept until released. upload() returns an empty handle and
    // sets `error` when it cannot (no device, out of memory after dropping
    // the engine's cached buffers); timing, when given, gets uploadMs/totalMs.
    DeviceImageHandle upload(ConstImageView image, std::string& error, TimingRecord* timing = nullptr);
    // Filters a resident image as one launch over the whole image; timing
    // gets kernelMs, downloadMs (host targets) and totalMs, no upload.
    std::string run(const FilterSpec& spec, DeviceImageHandle image, const std::string& mode, const RunTarget& target,
                    TimingRecord& timing, const LaunchConfig& launch = {});
    // Filters device memory the caller owns, as the resident run does, with
    // no copy to or from the host; the input is only read. An input whose
    // pointer or pitch the kernels cannot read in place is first copied on
    // the device into an engine buffer, and that copy's time is added to
    // layoutMs. timing gets no uploadMs.
    std::string run(const FilterSpec& spec, const DeviceInput& input, const std::string& mode, const RunTarget& target,
                    TimingRecord& timing, const LaunchConfig& launch = {});
    // False when the handle is unknown (never uploaded or already released).
    bool release(DeviceImageHandle image);
    // The resident image's shape; nullopt for an unknown handle.
    std::optional<DeviceImageInfo> info(DeviceImageHandle image);
    std::size_t residentBytes();
    int residentCount();

    // Memory pressure: frees every cached buffer (pipeline and batch slots,
    // pinned staging, scratch, the fft mode's plans and tiles); resident images
    // stay. Later runs allocate again.
    void trimCaches();
    // Device and pinned bytes the engine keeps cached between runs.
    std::size_t cachedBytes();

    struct Impl;
    Impl& impl() { return impl_; }  // the GPU side's own clients (gpu/src/engine_core.hpp)

private:
    Engine();
    Impl& impl_;
};

}  // namespace fs::gpu
