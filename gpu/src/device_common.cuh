#pragma once
// Device helpers every mode shares: border-aware pixel loads, shared-memory
// tiles with halo, and output stores through fs/pixel_math.hpp. Borders are
// resolved only here, through fs::borderIndex, so no mode can disagree with
// the CPU reference at the edges.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "fs/border.hpp"
#include "fs/pixel_math.hpp"
#include "launch.hpp"

namespace fs::gpu {

// Channels of one pixel as floats. 3-channel images are RGBRGB interleaved on
// the device exactly as on the host (no repacking on upload).
template <int C> struct Px {
    float c[C];
};

template <int C> __device__ __forceinline__ Px<C> splat(float v) {
    Px<C> p;
#pragma unroll
    for (int i = 0; i < C; ++i) p.c[i] = v;
    return p;
}

template <class T> struct Vec4;
template <> struct Vec4<std::uint8_t> { using type = uchar4; };
template <> struct Vec4<std::uint16_t> { using type = ushort4; };
template <> struct Vec4<float> { using type = float4; };

// Reads C channels at p; 4 channels as one vector load. kReadOnly routes the
// load through the read-only data cache (__ldg).
template <class T, int C, bool kReadOnly> __device__ __forceinline__ Px<C> loadChannels(const T* p) {
    Px<C> v;
    if constexpr (C == 4) {
        using V = typename Vec4<T>::type;
        const V q = kReadOnly ? __ldg(reinterpret_cast<const V*>(p)) : *reinterpret_cast<const V*>(p);
        v.c[0] = static_cast<float>(q.x);
        v.c[1] = static_cast<float>(q.y);
        v.c[2] = static_cast<float>(q.z);
        v.c[3] = static_cast<float>(q.w);
    } else {
#pragma unroll
        for (int i = 0; i < C; ++i) v.c[i] = static_cast<float>(kReadOnly ? __ldg(p + i) : p[i]);
    }
    return v;
}

// Image row iy (inside the image) -> row of the source buffer, which starts at
// image row rowBase and may wrap past the bottom (wrap-border strips).
__device__ __forceinline__ const unsigned char* sourceRow(const KernelGeom& g, int iy) {
    int r = iy - g.rowBase;
    if (r < 0) r += g.imageHeight;
    return g.src + static_cast<std::size_t>(r) * g.srcPitch;
}

// The one border-aware read: pixel (x, y) in image coordinates, anywhere.
template <class T, int C, bool kReadOnly = true>
__device__ __forceinline__ Px<C> loadPixel(const KernelGeom& g, int x, int y) {
    const int ix = borderIndex(x, g.width, g.border);
    const int iy = borderIndex(y, g.imageHeight, g.border);
    if ((ix | iy) < 0) return splat<C>(g.borderValue);
    return loadChannels<T, C, kReadOnly>(reinterpret_cast<const T*>(sourceRow(g, iy)) + ix * C);
}

// Rounds/saturates through fs::PixelTraits (pixel_math.hpp), 4 channels as one vector store.
template <class TO, int C> __device__ __forceinline__ void storeChannels(TO* p, const Px<C>& v) {
    if constexpr (C == 4) {
        using V = typename Vec4<TO>::type;
        V q;
        q.x = PixelTraits<TO>::store(v.c[0]);
        q.y = PixelTraits<TO>::store(v.c[1]);
        q.z = PixelTraits<TO>::store(v.c[2]);
        q.w = PixelTraits<TO>::store(v.c[3]);
        *reinterpret_cast<V*>(p) = q;
    } else {
#pragma unroll
        for (int i = 0; i < C; ++i) p[i] = PixelTraits<TO>::store(v.c[i]);
    }
}

// fs::combineMagnitude and fs::applyMapping with each product rounded before
// the add, as the CPU reference (built with -ffp-contract=off) computes them;
// nvcc would fuse them into FMAs and differ in the last bit, which breaks
// bit-exactness of integer filters (u16 Sobel magnitude squares exceed 2^24).
__device__ __forceinline__ float magnitudeUnfused(float a, float b) {
    return sqrtf(__fadd_rn(__fmul_rn(a, a), __fmul_rn(b, b)));
}
__device__ __forceinline__ float mappingUnfused(float v, float scale, float offset, bool absolute) {
    v = __fadd_rn(__fmul_rn(v, scale), offset);
    return absolute ? fabsf(v) : v;
}

// Combines the kernel responses, applies the output mapping and stores pixel
// (x, y) (image coordinates): the CPU reference's arithmetic.
template <class T, int C>
__device__ __forceinline__ void storePixel(const KernelGeom& g, const KernelMath& m, int x, int y, const Px<C>& a,
                                           const Px<C>& b) {
    Px<C> v;
#pragma unroll
    for (int i = 0; i < C; ++i) {
        const float r = m.kernelCount > 1 ? magnitudeUnfused(a.c[i], b.c[i]) : a.c[i];
        v.c[i] = mappingUnfused(r, m.scale, m.offset, m.absolute);
    }
    unsigned char* row = g.dst + static_cast<std::size_t>(y - g.outRow0) * g.dstPitch;
    if (m.outFloat) storeChannels<float, C>(reinterpret_cast<float*>(row) + x * C, v);
    else storeChannels<T, C>(reinterpret_cast<T*>(row) + x * C, v);
}

// acc += w * v for every channel.
template <int C> __device__ __forceinline__ void madd(Px<C>& acc, float w, const Px<C>& v) {
#pragma unroll
    for (int i = 0; i < C; ++i) acc.c[i] = fmaf(w, v.c[i], acc.c[i]);
}

// Shared-memory pixels: C floats interleaved, 4 channels as one float4.
template <int C> __device__ __forceinline__ Px<C> loadShared(const float* s) {
    Px<C> v;
    if constexpr (C == 4) {
        const float4 q = *reinterpret_cast<const float4*>(s);
        v.c[0] = q.x, v.c[1] = q.y, v.c[2] = q.z, v.c[3] = q.w;
    } else {
#pragma unroll
        for (int i = 0; i < C; ++i) v.c[i] = s[i];
    }
    return v;
}
template <int C> __device__ __forceinline__ void storeShared(float* s, const Px<C>& v) {
    if constexpr (C == 4) {
        *reinterpret_cast<float4*>(s) = make_float4(v.c[0], v.c[1], v.c[2], v.c[3]);
    } else {
#pragma unroll
        for (int i = 0; i < C; ++i) s[i] = v.c[i];
    }
}

// The whole block copies the border-resolved window [x0, x0+w) x [y0, y0+h)
// (image coordinates) into shared memory as floats, `stride` floats a row.
// A warp reads 32 consecutive pixels of a row (coalesced); each thread issues
// kBatch loads before its first shared store, so several are in flight
// (the bandwidth-delay product of HBM3 needs ~16 KB in flight per SM).
template <class T, int C>
__device__ __forceinline__ void loadTile(float* s, int stride, const KernelGeom& g, int x0, int y0, int w, int h) {
    constexpr int kBatch = 8;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5, warps = (blockDim.x * blockDim.y) >> 5;
    const int segments = (w + 31) >> 5;
    const int items = h * segments;
    // Item i is row i / segments, segment i % segments. A warp's items step by
    // `warps`: its row and segment advance by a quotient and a remainder found
    // once, instead of an integer division per item.
    const int rowStep = warps / segments, segmentStep = warps - rowStep * segments;
    int ty = warp / segments, segment = warp - ty * segments;
    for (int base = warp; base < items; base += warps * kBatch) {
        Px<C> v[kBatch];
        int at[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int tx = segment * 32 + lane;
            at[b] = -1;
            if (base + b * warps < items && tx < w) {
                const int iy = borderIndex(y0 + ty, g.imageHeight, g.border);
                const int ix = borderIndex(x0 + tx, g.width, g.border);
                v[b] = (ix | iy) < 0 ? splat<C>(g.borderValue)
                                     : loadChannels<T, C, true>(reinterpret_cast<const T*>(sourceRow(g, iy)) + ix * C);
                at[b] = ty * stride + tx * C;
            }
            segment += segmentStep, ty += rowStep;
            if (segment >= segments) segment -= segments, ++ty;
        }
#pragma unroll
        for (int b = 0; b < kBatch; ++b)
            if (at[b] >= 0) storeShared<C>(s + at[b], v[b]);
    }
}

// The textbook halo load: thread (tx, ty) copies window pixels (tx + i*bw,
// ty + j*bh). Simple, but each thread has one load in flight at a time.
template <class T, int C>
__device__ __forceinline__ void loadTilePerThread(float* s, int stride, const KernelGeom& g, int x0, int y0, int w,
                                                  int h) {
    for (int ty = threadIdx.y; ty < h; ty += blockDim.y)
        for (int tx = threadIdx.x; tx < w; tx += blockDim.x)
            storeShared<C>(s + ty * stride + tx * C, loadPixel<T, C>(g, x0 + tx, y0 + ty));
}

// loadTile or loadTilePerThread for a depth known only at run time: kernels
// that stage everything in shared memory as floats need not be compiled once
// per depth (the branch is uniform and taken once per tile).
template <int C>
__device__ __forceinline__ void loadTileAnyDepth(bool perThread, float* s, int stride, const KernelGeom& g,
                                                 const KernelMath& m, int x0, int y0, int w, int h) {
    auto load = [&](auto tag) {
        using T = decltype(tag);
        if (perThread) loadTilePerThread<T, C>(s, stride, g, x0, y0, w, h);
        else loadTile<T, C>(s, stride, g, x0, y0, w, h);
    };
    switch (m.inDepth) {
    case Depth::U8: load(std::uint8_t{}); break;
    case Depth::U16: load(std::uint16_t{}); break;
    default: load(float{}); break;
    }
}

template <int C>
__device__ __forceinline__ void storePixelAnyDepth(const KernelGeom& g, const KernelMath& m, int x, int y,
                                                   const Px<C>& a, const Px<C>& b) {
    switch (m.inDepth) {
    case Depth::U8: storePixel<std::uint8_t, C>(g, m, x, y, a, b); break;
    case Depth::U16: storePixel<std::uint16_t, C>(g, m, x, y, a, b); break;
    default: storePixel<float, C>(g, m, x, y, a, b); break;
    }
}

// Window rows a tile must load: its outputs' rows plus the halo, but never
// past the last output row of this launch (+ halo), which is all a strip's
// source buffer holds.
__device__ __forceinline__ int windowRows(const KernelGeom& g, int yTile, int tileH, int ry) {
    return min(tileH, g.outRow0 + g.outRows - yTile) + 2 * ry;
}

namespace detail {
// f(integral_constant<R>) for R in 1..Max, or R = -1 for anything else.
template <int Max, int R = 1, class F> void forRadius(int radius, F&& f) {
    if constexpr (R > Max) {
        f(std::integral_constant<int, -1>{});
    } else {
        if (radius == R) f(std::integral_constant<int, R>{});
        else forRadius<Max, R + 1>(radius, f);
    }
}
template <class F> void forChannelsKernels(int channels, int kernels, F&& f) {
    auto byKernels = [&](auto c) {
        if (kernels > 1) f(c, std::integral_constant<int, 2>{});
        else f(c, std::integral_constant<int, 1>{});
    };
    switch (channels) {
    case 1: byKernels(std::integral_constant<int, 1>{}); break;
    case 3: byKernels(std::integral_constant<int, 3>{}); break;
    default: byKernels(std::integral_constant<int, 4>{}); break;
    }
}
}  // namespace detail

// Calls f(T{}, std::integral_constant<int, C>{}) for the pixel type of an
// input: the one place a run-time depth/channel pair becomes template arguments.
template <class F> void dispatchPixel(Depth depth, int channels, F&& f) {
    auto byChannels = [&](auto tag) {
        switch (channels) {
        case 1: f(tag, std::integral_constant<int, 1>{}); break;
        case 3: f(tag, std::integral_constant<int, 3>{}); break;
        default: f(tag, std::integral_constant<int, 4>{}); break;
        }
    };
    switch (depth) {
    case Depth::U8: byChannels(std::uint8_t{}); break;
    case Depth::U16: byChannels(std::uint16_t{}); break;
    default: byChannels(float{}); break;
    }
}

}  // namespace fs::gpu
