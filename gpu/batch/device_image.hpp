#pragma once
// Internal to gpu/batch: an image in device memory (pitched, owned), held in
// one of the engine's buffers and allocated through the caller's session.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>

#include "cuda_support.hpp"
#include "engine_core.hpp"
#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

namespace fs::gpu::batch {

using fs::gpu::DeviceView;

class DeviceImage {
public:
    // Frees the device memory now (the free waits for work on it to finish).
    void release() {
        pixels_.release();
        pitch_ = 0;
    }
    bool empty() const { return pixels_.get() == nullptr; }

    // Rows kPitchAlign apart, as the engine's resident images (the texture mode binds them).
    cudaError_t allocate(DeviceSession& session, int w, int h, int c, Depth d) {
        width = w, height = h, channels = c, depth = d;
        pitch_ = alignUp(rowBytes(), kPitchAlign);
        const cudaError_t err = session.reserve(pixels_, std::max<std::size_t>(pitch_ * static_cast<std::size_t>(h), 1));
        if (err != cudaSuccess) release();
        return err;
    }
    cudaError_t upload(DeviceSession& session, ConstImageView v, cudaStream_t s) {
        cudaError_t err = allocate(session, v.width, v.height, v.channels, v.depth);
        if (err != cudaSuccess) return err;
        return cudaMemcpy2DAsync(pixels_.get(), pitch_, v.data, v.stride, rowBytes(), static_cast<std::size_t>(height),
                                 cudaMemcpyHostToDevice, s);
    }
    cudaError_t download(Image& out, cudaStream_t s) const {
        out = Image(width, height, channels, depth);
        return cudaMemcpy2DAsync(out.data(), out.stride(), pixels_.get(), pitch_, rowBytes(),
                                 static_cast<std::size_t>(height), cudaMemcpyDeviceToHost, s);
    }

    unsigned char* data() const { return pixels_.data(); }
    DeviceView view() const { return {data(), pitch_, width, height, channels, depth}; }
    std::size_t pitch() const { return pitch_; }
    std::size_t rowBytes() const {
        return depthBytes(depth) * static_cast<std::size_t>(channels) * static_cast<std::size_t>(width);
    }

    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;

private:
    DeviceBuffer pixels_;
    std::size_t pitch_ = 0;
};

// Point operations and labelling on device images (point_ops.cu, ccl.cu).
// Each allocates `out` (and any work memory) through `session` and enqueues
// its work on `s`, one of the session's streams; empty or why not.
std::string absOnDevice(DeviceSession& session, const DeviceImage& in, DeviceImage& out, cudaStream_t s);
std::string magnitudeOnDevice(DeviceSession& session, const DeviceImage& a, const DeviceImage& b, DeviceImage& out,
                              cudaStream_t s);
std::string thresholdOnDevice(DeviceSession& session, const DeviceImage& in, float threshold, DeviceImage& out,
                              cudaStream_t s);
std::string normalizeOnDevice(DeviceSession& session, const DeviceImage& in, DeviceImage& out, cudaStream_t s);
std::string grayscaleOnDevice(DeviceSession& session, const DeviceImage& in, DeviceImage& out, cudaStream_t s);
std::string labelOnDevice(DeviceSession& session, const DeviceImage& mask, DeviceImage& out, long long& count,
                          cudaStream_t s);

}  // namespace fs::gpu::batch
