#pragma once
// Internal: device and pinned host buffers that grow on demand and are kept
// for reuse (pipeline and batch slots, the tuner's image). Move-only; the
// destructor frees, so a buffer must outlive the work queued on it.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace fs::gpu {

// True while setAllocationFailureForTesting(true) (fs/gpu/cuda_options.hpp)
// is on: every device reservation then fails as on a full device, even one a
// buffer could serve from what it already holds.
bool deviceAllocationFailureForced();

enum class Memory { Device, Pinned };

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

template <Memory kWhere> class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    ~Buffer() { release(); }

    // At least `need` bytes. Growing drops the old contents (nothing keeps
    // data across a reserve that grows).
    cudaError_t reserve(std::size_t need) {
        if constexpr (kWhere == Memory::Device)
            if (deviceAllocationFailureForced()) return cudaErrorMemoryAllocation;
        if (need <= bytes_) return cudaSuccess;
        release();
        cudaError_t err;
        if constexpr (kWhere == Memory::Device) err = cudaMalloc(&ptr_, need);
        else err = cudaHostAlloc(&ptr_, need, cudaHostAllocDefault);
        if (err != cudaSuccess) {
            ptr_ = nullptr;
            return err;
        }
        bytes_ = need;
        return cudaSuccess;
    }

    void release() {
        if (ptr_) {
            if constexpr (kWhere == Memory::Device) cudaFree(ptr_);
            else cudaFreeHost(ptr_);
        }
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

using DeviceBuffer = Buffer<Memory::Device>;
using PinnedBuffer = Buffer<Memory::Pinned>;

}  // namespace fs::gpu
