// Pipeline point operations on the device, one thread per sample. The
// arithmetic mirrors fs/cpu/pipeline.hpp's loops (no fused multiply-adds),
// so results equal the CPU's bit for bit.
#include <cfloat>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstring>

#include "device_common.cuh"
#include "device_image.hpp"
#include "typed_launch.hpp"

namespace fs::gpu::batch {
namespace {

constexpr int kThreads = 256;

template <class F> void withType(Depth d, F&& f) {
    switch (d) {
    case Depth::U8: f(std::uint8_t{}); break;
    case Depth::U16: f(std::uint16_t{}); break;
    default: f(float{}); break;
    }
}

template <class T> __device__ __forceinline__ const T* rowOf(const unsigned char* base, std::size_t pitch, int y) {
    return reinterpret_cast<const T*>(base + pitch * static_cast<std::size_t>(y));
}
template <class T> __device__ __forceinline__ T* rowOf(unsigned char* base, std::size_t pitch, int y) {
    return reinterpret_cast<T*>(base + pitch * static_cast<std::size_t>(y));
}

struct Plane {
    const unsigned char* src;
    std::size_t srcPitch;
    unsigned char* dst;
    std::size_t dstPitch;
    int samplesPerRow;
    int rows;
};

// Rows beyond the grid's 65535 limit are taken by the same blocks in turn.
dim3 gridFor(const Plane& p) {
    return dim3(ceilDiv(p.samplesPerRow, kThreads), static_cast<unsigned>(std::min(p.rows, 65535)));
}

Plane planeOf(const DeviceImage& in, DeviceImage& out) {
    return {in.data(), in.pitch(), out.data(), out.pitch(), in.width * in.channels, in.height};
}

template <class In, class Out, class Op> __global__ void mapKernel(Plane p, Op op) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.samplesPerRow) return;
    for (int y = blockIdx.y; y < p.rows; y += gridDim.y)
        rowOf<Out>(p.dst, p.dstPitch, y)[i] = PixelTraits<Out>::store(op(static_cast<float>(rowOf<In>(p.src, p.srcPitch, y)[i])));
}

struct AbsOp {
    __device__ float operator()(float v) const { return fabsf(v); }
};
struct ThresholdOp {
    float t;
    __device__ float operator()(float v) const { return v > t ? 255.0f : 0.0f; }
};
struct NormalizeOp {
    double scale, shift;
    __device__ float operator()(float v) const {
        return isfinite(v) ? static_cast<float>(__dadd_rn(__dmul_rn(static_cast<double>(v), scale), shift)) : 0.0f;
    }
};

template <class T> __global__ void magnitudeKernel(Plane p, const unsigned char* b, std::size_t bPitch) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.samplesPerRow) return;
    for (int y = blockIdx.y; y < p.rows; y += gridDim.y) {
        const float va = static_cast<float>(rowOf<T>(p.src, p.srcPitch, y)[i]);
        const float vb = static_cast<float>(rowOf<T>(b, bPitch, y)[i]);
        rowOf<T>(p.dst, p.dstPitch, y)[i] = PixelTraits<T>::store(magnitudeUnfused(va, vb));
    }
}

template <class T> __global__ void grayscaleKernel(Plane p, int channels) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= p.samplesPerRow) return;  // samplesPerRow = width here
    for (int y = blockIdx.y; y < p.rows; y += gridDim.y) {
        const T* px = rowOf<T>(p.src, p.srcPitch, y) + static_cast<std::ptrdiff_t>(x) * channels;  // B, G, R(, A)
        const float v = __fadd_rn(__fadd_rn(__fmul_rn(0.114f, static_cast<float>(px[0])), __fmul_rn(0.587f, static_cast<float>(px[1]))),
                                  __fmul_rn(0.299f, static_cast<float>(px[2])));
        rowOf<T>(p.dst, p.dstPitch, y)[x] = PixelTraits<T>::store(v);
    }
}

// Floats as ints that order like the floats, so atomicMin/atomicMax work on them.
__device__ __forceinline__ int orderedInt(float v) {
    const int i = __float_as_int(v);
    return i >= 0 ? i : i ^ 0x7FFFFFFF;
}
float fromOrderedInt(int i) {
    const int bits = i >= 0 ? i : i ^ 0x7FFFFFFF;
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

template <class T> __global__ void minMaxKernel(Plane p, int* lohi) {
    int lo = INT_MAX, hi = INT_MIN;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.samplesPerRow)
        for (int y = blockIdx.y; y < p.rows; y += gridDim.y) {
            const float v = static_cast<float>(rowOf<T>(p.src, p.srcPitch, y)[i]);
            if (isfinite(v)) lo = min(lo, orderedInt(v)), hi = max(hi, orderedInt(v));
        }
    for (int o = 16; o > 0; o >>= 1) {
        lo = min(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, o));
        hi = max(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, o));
    }
    if ((threadIdx.x & 31) == 0 && lo != INT_MAX) {
        atomicMin(&lohi[0], lo);
        atomicMax(&lohi[1], hi);
    }
}

std::string launched(const char* what, cudaError_t err) {
    return err == cudaSuccess ? std::string() : cudaMessage(what, err);
}

template <class In, class Out, class Op> cudaError_t launchMap(const Plane& p, Op op, cudaStream_t s) {
    return launchKernel(mapKernel<In, Out, Op>, gridFor(p), dim3(kThreads), 0, s, p, op);
}

}  // namespace

std::string absOnDevice(DeviceSession& session, const DeviceImage& in, DeviceImage& out, cudaStream_t s) {
    if (cudaError_t err = out.allocate(session, in.width, in.height, in.channels, in.depth); err != cudaSuccess)
        return cudaMessage("abs: allocating", err);
    const Plane p = planeOf(in, out);
    cudaError_t err = cudaSuccess;
    withType(in.depth, [&](auto t) {
        using T = decltype(t);
        err = launchMap<T, T>(p, AbsOp{}, s);
    });
    return launched("abs", err);
}

std::string magnitudeOnDevice(DeviceSession& session, const DeviceImage& a, const DeviceImage& b, DeviceImage& out,
                              cudaStream_t s) {
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.depth != b.depth)
        return "magnitude: the two inputs differ (" + std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
               std::to_string(a.channels) + " " + depthName(a.depth) + " vs " + std::to_string(b.width) + "x" +
               std::to_string(b.height) + "x" + std::to_string(b.channels) + " " + depthName(b.depth) + ")";
    if (cudaError_t err = out.allocate(session, a.width, a.height, a.channels, a.depth); err != cudaSuccess)
        return cudaMessage("magnitude: allocating", err);
    const Plane p = planeOf(a, out);
    cudaError_t err = cudaSuccess;
    withType(a.depth, [&](auto t) {
        err = launchKernel(magnitudeKernel<decltype(t)>, gridFor(p), dim3(kThreads), 0, s, p, b.data(), b.pitch());
    });
    return launched("magnitude", err);
}

std::string thresholdOnDevice(DeviceSession& session, const DeviceImage& in, float threshold, DeviceImage& out,
                              cudaStream_t s) {
    if (cudaError_t err = out.allocate(session, in.width, in.height, in.channels, Depth::U8); err != cudaSuccess)
        return cudaMessage("threshold: allocating", err);
    const Plane p = planeOf(in, out);
    cudaError_t err = cudaSuccess;
    withType(in.depth, [&](auto t) { err = launchMap<decltype(t), std::uint8_t>(p, ThresholdOp{threshold}, s); });
    return launched("threshold", err);
}

std::string normalizeOnDevice(DeviceSession& session, const DeviceImage& in, DeviceImage& out, cudaStream_t s) {
    if (cudaError_t err = out.allocate(session, in.width, in.height, in.channels, Depth::U8); err != cudaSuccess)
        return cudaMessage("normalize: allocating", err);
    DeviceBuffer lohi;
    if (cudaError_t err = session.reserve(lohi, 2 * sizeof(int)); err != cudaSuccess)
        return cudaMessage("normalize: allocating", err);
    int* const deviceLoHi = static_cast<int*>(lohi.get());
    const int init[2] = {INT_MAX, INT_MIN};
    int found[2] = {INT_MAX, INT_MIN};
    const Plane p = planeOf(in, out);
    cudaError_t err = cudaMemcpyAsync(deviceLoHi, init, sizeof init, cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess)
        withType(in.depth, [&](auto t) {
            err = launchKernel(minMaxKernel<decltype(t)>, gridFor(p), dim3(kThreads), 0, s, p, deviceLoHi);
        });
    if (err == cudaSuccess) err = cudaMemcpyAsync(found, deviceLoHi, sizeof found, cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) return cudaMessage("normalize: min/max", err);
    // As the CPU (and cv::normalize NORM_MINMAX): a flat or all non-finite image maps to 0.
    const bool any = found[0] != INT_MAX;
    const double lo = any ? fromOrderedInt(found[0]) : 0.0, hi = any ? fromOrderedInt(found[1]) : 0.0;
    const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
    const double shift = hi > lo ? -lo * scale : 0.0;
    withType(in.depth, [&](auto t) { err = launchMap<decltype(t), std::uint8_t>(p, NormalizeOp{scale, shift}, s); });
    return launched("normalize", err);
}

std::string grayscaleOnDevice(DeviceSession& session, const DeviceImage& in, DeviceImage& out, cudaStream_t s) {
    if (cudaError_t err = out.allocate(session, in.width, in.height, 1, in.depth); err != cudaSuccess)
        return cudaMessage("grayscale: allocating", err);
    if (in.channels == 1) {
        const cudaError_t err = cudaMemcpy2DAsync(out.data(), out.pitch(), in.data(), in.pitch(), in.rowBytes(),
                                                  static_cast<std::size_t>(in.height), cudaMemcpyDeviceToDevice, s);
        return err == cudaSuccess ? std::string() : cudaMessage("grayscale: copy", err);
    }
    Plane p = planeOf(in, out);
    p.samplesPerRow = in.width;
    cudaError_t err = cudaSuccess;
    withType(in.depth, [&](auto t) {
        err = launchKernel(grayscaleKernel<decltype(t)>, gridFor(p), dim3(kThreads), 0, s, p, in.channels);
    });
    return launched("grayscale", err);
}

}  // namespace fs::gpu::batch
