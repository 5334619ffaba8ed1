#pragma once
// Internal to gpu/batch: an image in device memory (pitched, owned).
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "fs/filter_spec.hpp"
#include "cuda_support.hpp"
#include "fs/image.hpp"

namespace fs::gpu::batch {

using fs::gpu::DeviceView;

class DeviceImage {
public:
    DeviceImage() = default;
    DeviceImage(const DeviceImage&) = delete;
    DeviceImage& operator=(const DeviceImage&) = delete;
    DeviceImage(DeviceImage&& o) noexcept { *this = std::move(o); }
    DeviceImage& operator=(DeviceImage&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(pitch_, o.pitch_);
        width = o.width, height = o.height, channels = o.channels, depth = o.depth;
        return *this;
    }
    ~DeviceImage() {
        if (data_) cudaFree(data_);
    }

    // Frees the device memory now (cudaFree waits for work on it to finish).
    void release() {
        if (data_) cudaFree(data_);
        data_ = nullptr;
        pitch_ = 0;
    }
    bool empty() const { return data_ == nullptr; }

    cudaError_t allocate(int w, int h, int c, Depth d) {
        if (data_) cudaFree(data_), data_ = nullptr;
        width = w, height = h, channels = c, depth = d;
        return cudaMallocPitch(&data_, &pitch_, rowBytes(), static_cast<std::size_t>(h));
    }
    cudaError_t upload(ConstImageView v, cudaStream_t s) {
        cudaError_t err = allocate(v.width, v.height, v.channels, v.depth);
        if (err != cudaSuccess) return err;
        return cudaMemcpy2DAsync(data_, pitch_, v.data, v.stride, rowBytes(), static_cast<std::size_t>(height),
                                 cudaMemcpyHostToDevice, s);
    }
    cudaError_t download(Image& out, cudaStream_t s) const {
        out = Image(width, height, channels, depth);
        return cudaMemcpy2DAsync(out.data(), out.stride(), data_, pitch_, rowBytes(), static_cast<std::size_t>(height),
                                 cudaMemcpyDeviceToHost, s);
    }

    unsigned char* data() const { return static_cast<unsigned char*>(data_); }
    DeviceView view() const { return {data(), pitch_, width, height, channels, depth}; }
    std::size_t pitch() const { return pitch_; }
    std::size_t rowBytes() const {
        return depthBytes(depth) * static_cast<std::size_t>(channels) * static_cast<std::size_t>(width);
    }

    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;

private:
    void* data_ = nullptr;
    std::size_t pitch_ = 0;
};

// Point operations and labelling on device images (point_ops.cu, ccl.cu).
// Each allocates `out` and enqueues its work on `s`; empty or why not.
std::string absOnDevice(const DeviceImage& in, DeviceImage& out, cudaStream_t s);
std::string magnitudeOnDevice(const DeviceImage& a, const DeviceImage& b, DeviceImage& out, cudaStream_t s);
std::string thresholdOnDevice(const DeviceImage& in, float threshold, DeviceImage& out, cudaStream_t s);
std::string normalizeOnDevice(const DeviceImage& in, DeviceImage& out, cudaStream_t s);
std::string grayscaleOnDevice(const DeviceImage& in, DeviceImage& out, cudaStream_t s);
std::string labelOnDevice(const DeviceImage& mask, DeviceImage& out, long long& count, cudaStream_t s);

}  // namespace fs::gpu::batch
