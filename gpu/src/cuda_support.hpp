#pragma once
// Internal: the one wording of CUDA errors and the one set of timing helpers
// every part of the GPU side uses (engine, batch, pipeline runner, tuner,
// GL interop).
#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <string>

#include "fs/image.hpp"

namespace fs::gpu {

// An image in device memory someone else owns (a batch slot's buffer, a
// resident image, a pipeline intermediate).
struct DeviceView {
    const unsigned char* data = nullptr;
    std::size_t pitch = 0;
    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;
};

// "what: cudaErrorName (description)", said plainly first when the device is
// full: the user's next step (a smaller image, the CPU) depends on it.
inline std::string cudaMessage(const std::string& what, cudaError_t err) {
    const std::string prefix = err == cudaErrorMemoryAllocation ? "out of device memory: " : "";
    return prefix + what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Milliseconds between two recorded events (0 when either is unusable).
inline double elapsedMs(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0;
}

inline std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// One piece of work on a stream: start, uploaded, filtered, done. Split
// timing: upload = start..uploaded, kernel = uploaded..filtered, download =
// filtered..done.
struct PieceEvents {
    cudaEvent_t start = nullptr, uploaded = nullptr, filtered = nullptr, done = nullptr;
    // Planar layout only: the planes split (after uploaded) and filtered (before filtered).
    cudaEvent_t planesSplit = nullptr, planesFiltered = nullptr;
    // A pipelined piece: on the kernel stream, once its upload is done, just before its kernel.
    cudaEvent_t launched = nullptr;

    cudaError_t create() {
        cudaError_t err = cudaSuccess;
        for (cudaEvent_t* e : {&start, &uploaded, &filtered, &done, &planesSplit, &planesFiltered, &launched})
            if (err == cudaSuccess && !*e) err = cudaEventCreate(e);
        if (err != cudaSuccess) destroy();
        return err;
    }
    void destroy() {
        for (cudaEvent_t* e : {&start, &uploaded, &filtered, &done, &planesSplit, &planesFiltered, &launched}) {
            if (*e) cudaEventDestroy(*e);
            *e = nullptr;
        }
    }
    double uploadMs() const { return elapsedMs(start, uploaded); }
    double kernelMs() const { return elapsedMs(uploaded, filtered); }
    double downloadMs() const { return elapsedMs(filtered, done); }
    double planesKernelMs() const { return elapsedMs(planesSplit, planesFiltered); }
    double planesLayoutMs() const { return elapsedMs(uploaded, planesSplit) + elapsedMs(planesFiltered, filtered); }
};

}  // namespace fs::gpu
