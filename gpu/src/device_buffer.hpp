#pragma once
// Internal: device buffers that grow on demand and are kept for reuse
// (pipeline and batch slots, resident images, the tuner's image; pinned host
// staging lives in staging_pool.hpp). Move-only; the destructor frees, so a
// buffer must outlive the work queued on it.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace fs::gpu {

// True while setAllocationFailureForTesting(true) (fs/gpu/cuda_options.hpp)
// is on: every device reservation then fails as on a full device, even one a
// buffer could serve from what it already holds.
bool deviceAllocationFailureForced();

// Whether host memory p is page-locked (cudaHostAlloc or registered): copies
// then go straight from or into it, without a pinned staging buffer.
inline bool isPinned(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();  // pageable memory may report an error: not sticky, clear it
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    // At least `need` bytes. Growing drops the old contents (nothing keeps
    // data across a reserve that grows).
    cudaError_t reserve(std::size_t need) {
        if (deviceAllocationFailureForced()) return cudaErrorMemoryAllocation;
        if (need <= bytes_) return cudaSuccess;
        release();
        const cudaError_t err = cudaMalloc(&ptr_, need);
        if (err != cudaSuccess) {
            ptr_ = nullptr;
            return err;
        }
        bytes_ = need;
        return cudaSuccess;
    }

    void release() {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }

    void* get() const { return ptr_; }
    unsigned char* data() const { return static_cast<unsigned char*>(ptr_); }
    std::size_t bytes() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace fs::gpu
