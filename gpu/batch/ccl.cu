// 4-connected labelling on the device: union-find with atomicMin (Playne and
// Hawick's scheme). Every set's root is its smallest pixel index, i.e. its
// first pixel in raster order; an exclusive scan over "is a root" then gives
// the same numbers as the CPU's two-pass labelling, 1..count in raster order.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "device_common.cuh"
#include "device_image.hpp"
#include "fs/pipeline.hpp"
#include "typed_launch.hpp"

namespace fs::gpu::batch {
namespace {

constexpr int kThreads = 256;

template <class T> __device__ __forceinline__ bool foreground(const unsigned char* mask, std::size_t pitch, int width, int i) {
    const int y = i / width, x = i - y * width;
    return reinterpret_cast<const T*>(mask + pitch * static_cast<std::size_t>(y))[x] != T{0};
}

__device__ __forceinline__ int findRoot(const int* parent, int i) {
    // volatile: other threads lower these entries while we walk them.
    const volatile int* p = parent;
    while (p[i] != i) i = p[i];
    return i;
}

// Links the two sets; the larger root ends up pointing at the smaller.
__device__ void unite(int* parent, int a, int b) {
    for (;;) {
        a = findRoot(parent, a);
        b = findRoot(parent, b);
        if (a == b) return;
        if (a > b) {
            const int t = a;
            a = b;
            b = t;
        }
        const int old = atomicMin(&parent[b], a);
        if (old == b) return;  // b was still a root: linked
        b = old;               // someone linked b first: retry from where it points
    }
}

template <class T> __global__ void initKernel(const unsigned char* mask, std::size_t pitch, int width, int n, int* parent) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) parent[i] = foreground<T>(mask, pitch, width, i) ? i : -1;
}

template <class T> __global__ void mergeKernel(const unsigned char* mask, std::size_t pitch, int width, int n, int* parent) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || parent[i] < 0) return;
    const int x = i % width;
    if (x > 0 && foreground<T>(mask, pitch, width, i - 1)) unite(parent, i, i - 1);
    if (i >= width && foreground<T>(mask, pitch, width, i - width)) unite(parent, i, i - width);
}

__global__ void rootsKernel(int n, int* parent, int* isRoot) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (parent[i] < 0) {
        isRoot[i] = 0;
        return;
    }
    const int r = findRoot(parent, i);
    parent[i] = r;
    isRoot[i] = r == i ? 1 : 0;
}

__global__ void labelKernel(int n, int width, const int* parent, const int* rootNumber, unsigned char* out, std::size_t pitch) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int y = i / width, x = i - y * width;
    const int r = parent[i];
    reinterpret_cast<float*>(out + pitch * static_cast<std::size_t>(y))[x] = r < 0 ? 0.0f : static_cast<float>(rootNumber[r] + 1);
}

template <class F> void withType(Depth d, F&& f) {
    switch (d) {
    case Depth::U8: f(std::uint8_t{}); break;
    case Depth::U16: f(std::uint16_t{}); break;
    default: f(float{}); break;
    }
}

}  // namespace

std::string labelOnDevice(DeviceSession& session, const DeviceImage& mask, DeviceImage& out, long long& count,
                          cudaStream_t s) {
    if (mask.channels != 1)
        return "label: needs a 1-channel image, got " + std::to_string(mask.channels) +
               " channels (add a grayscale step before it)";
    const long long pixels = static_cast<long long>(mask.width) * mask.height;
    if (pixels > (1LL << 31) - 2) return "label: image too large for 32-bit pixel indices";
    const int n = static_cast<int>(pixels), width = mask.width;
    if (cudaError_t err = out.allocate(session, mask.width, mask.height, 1, Depth::F32); err != cudaSuccess)
        return cudaMessage("label: allocating", err);
    // Freed on every way out: before any work is queued on them, or after the stream has drained.
    DeviceBuffer parentBuffer, isRootBuffer, numberBuffer, scratch;
    std::size_t scratchBytes = 0;
    const std::size_t indexBytes = sizeof(int) * static_cast<std::size_t>(n);
    cudaError_t err = session.reserve(parentBuffer, indexBytes);
    if (err == cudaSuccess) err = session.reserve(isRootBuffer, indexBytes);
    if (err == cudaSuccess) err = session.reserve(numberBuffer, indexBytes);
    if (err != cudaSuccess) return cudaMessage("label: allocating", err);
    int* const parent = static_cast<int*>(parentBuffer.get());
    int* const isRoot = static_cast<int*>(isRootBuffer.get());
    int* const number = static_cast<int*>(numberBuffer.get());
    err = cub::DeviceScan::ExclusiveSum(nullptr, scratchBytes, isRoot, number, n, s);
    if (err == cudaSuccess && (err = session.reserve(scratch, std::max<std::size_t>(scratchBytes, 1))) != cudaSuccess)
        return cudaMessage("label: allocating", err);
    const dim3 grid(ceilDiv(n, kThreads)), block(kThreads);
    if (err == cudaSuccess)
        withType(mask.depth, [&](auto t) {
            using T = decltype(t);
            err = launchKernel(initKernel<T>, grid, block, 0, s, mask.data(), mask.pitch(), width, n, parent);
            if (err == cudaSuccess)
                err = launchKernel(mergeKernel<T>, grid, block, 0, s, mask.data(), mask.pitch(), width, n, parent);
        });
    if (err == cudaSuccess) err = launchKernel(rootsKernel, grid, block, 0, s, n, parent, isRoot);
    if (err == cudaSuccess) err = cub::DeviceScan::ExclusiveSum(scratch.get(), scratchBytes, isRoot, number, n, s);
    if (err == cudaSuccess)
        err = launchKernel(labelKernel, grid, block, 0, s, n, width, parent, number, out.data(), out.pitch());
    int last[2] = {0, 0};  // scan and flag of the last pixel: their sum is the count
    if (err == cudaSuccess) err = cudaMemcpyAsync(&last[0], number + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = cudaMemcpyAsync(&last[1], isRoot + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) {
        cudaStreamSynchronize(s);  // nothing may still use the buffers freed on the way out
        return cudaMessage("label", err);
    }
    count = static_cast<long long>(last[0]) + last[1];
    if (count > kMaxLabelCount) return tooManyObjects(count);
    return {};
}

}  // namespace fs::gpu::batch
