#pragma once
// What the quad kernels of the registers mode (registers_kernel.cuh) and the
// separable mode (separable_quads.cu) share: the leading frame blocks, one
// input row of N adjacent gray, RGBA8 or 4 adjacent BGR8 pixels and their
// neighbours as floats, and the quads' stores.
#include <cstdint>
#include <type_traits>

#include "device_common.cuh"
#include "quad_frame.hpp"

namespace fs::gpu {
namespace {

// Bytes to floats without the conversion unit (I2F: 16 per clock per SM):
// 0x4B0000bb is the float 2^23 + b exactly, so subtracting 2^23 leaves b.
// Exact, and no slower than I2F in the benchmark (docs/performance.md).
__device__ __forceinline__ Px<4> unpackRgba8(unsigned w) {
    Px<4> p;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        p.c[i] = __fsub_rn(__uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u + i)), 8388608.0f);
    return p;
}

// One byte as a float, as unpackRgba8 converts each of a word's bytes.
__device__ __forceinline__ float byteToFloat(unsigned char b) {
    return __fsub_rn(__uint_as_float(0x4B000000u | b), 8388608.0f);
}

// Four bytes, each in the low byte of its word (saturateRound's result), as one word.
__device__ __forceinline__ unsigned packLowBytes(unsigned b0, unsigned b1, unsigned b2, unsigned b3) {
    return __byte_perm(__byte_perm(b0, b1, 0x0040), __byte_perm(b2, b3, 0x0040), 0x5410);
}

// The quad kernels' frame (QuadFrame: the outputs outside their span, all of
// them when the rows are not aligned) runs in the first frameBlockRows rows
// of their grid's blocks, one output per thread: compute(x, y) for this
// thread's. First, so that its few blocks' load latency hides under the quads
// that follow; a pixel per thread, so that it needs fewer registers than the
// quads: a separate launch added its whole latency, and the
// one-column path inlined doubled the quads' registers
// (docs/performance.md). True when this block is the frame's.
template <int PY, class Compute>
__device__ __forceinline__ bool quadFrameBlock(const KernelGeom& g, const QuadFrame& frame, int frameBlockRows,
                                               Compute&& compute) {
    if (static_cast<int>(blockIdx.y) >= frameBlockRows) return false;
    const int threads = blockDim.x * blockDim.y;
    const long long t = (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * threads +
                        threadIdx.y * blockDim.x + threadIdx.x;
    const int perQuad = frame.pixels * PY;
    int qx, qy;
    if (!frame.locate(t / perQuad, qx, qy)) return true;
    const int within = static_cast<int>(t % perQuad);
    const int x = qx * frame.pixels + within % frame.pixels, y = g.outRow0 + qy * PY + within / frame.pixels;
    if (x >= g.width || y >= g.outRow0 + g.outRows) return true;
    compute(x, y);
    return true;
}

// N consecutive words from one N-word load.
template <int N> __device__ __forceinline__ void loadWords(const unsigned char* p, unsigned* w) {
    if constexpr (N == 1) {
        w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
    } else if constexpr (N == 2) {
        const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
        w[0] = v.x, w[1] = v.y;
    } else {
        static_assert(N == 4, "1, 2 or 4 words");
        const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    }
}

// W consecutive words at p: one store of 1, 2 or 4 words, or three 4-byte
// stores (a BGR8 quad starts on a word, not on a wider vector).
template <int W> __device__ __forceinline__ void storeWords(unsigned char* p, const unsigned (&w)[W]) {
    if constexpr (W == 1) {
        *reinterpret_cast<unsigned*>(p) = w[0];
    } else if constexpr (W == 2) {
        *reinterpret_cast<uint2*>(p) = make_uint2(w[0], w[1]);
    } else if constexpr (W == 3) {
        unsigned* o = reinterpret_cast<unsigned*>(p);
        o[0] = w[0], o[1] = w[1], o[2] = w[2];
    } else {
        static_assert(W == 4, "1 to 4 words");
        *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

// A quad kernel's sums, zeroed.
template <int C, int K, int N, int PY> __device__ __forceinline__ void zeroSums(Px<C> (&acc)[K][N][PY]) {
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int o = 0; o < N; ++o)
#pragma unroll
            for (int j = 0; j < PY; ++j) acc[k][o][j] = splat<C>(0.0f);
}

// One input row of N adjacent gray pixels (u8: N = 4, 8 or 16; f32: 4) and R
// neighbours each side as floats: one N-pixel load, and the neighbours from
// the (R + 3) / 4 words (f32: 16-byte vectors) each side, L1 hits as the next
// threads load them; a byte each side at radius 1 on u8.
template <class T, int N, int R>
__device__ __forceinline__ void loadGrayQuadRow(const unsigned char* row, Px<1> (&p)[N + 2 * R]) {
    static_assert(R >= 1 && R <= 8, "neighbours from at most two words each side");
    constexpr int kSide = (R + 3) / 4;
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        unsigned w[N / 4];
        loadWords<N / 4>(row, w);
        if constexpr (R == 1) {
            p[0].c[0] = byteToFloat(__ldg(row - 1));
            p[N + 1].c[0] = byteToFloat(__ldg(row + N));
        } else {
            float left[4 * kSide], right[4 * kSide];
#pragma unroll
            for (int s = 0; s < kSide; ++s) {
                const Px<4> l = unpackRgba8(__ldg(reinterpret_cast<const unsigned*>(row - 4 * (kSide - s))));
                const Px<4> r = unpackRgba8(__ldg(reinterpret_cast<const unsigned*>(row + N + 4 * s)));
#pragma unroll
                for (int i = 0; i < 4; ++i) left[4 * s + i] = l.c[i], right[4 * s + i] = r.c[i];
            }
#pragma unroll
            for (int e = 0; e < R; ++e) p[e].c[0] = left[4 * kSide - R + e], p[N + R + e].c[0] = right[e];
        }
#pragma unroll
        for (int q = 0; q < N / 4; ++q) {
            const Px<4> bytes = unpackRgba8(w[q]);  // four gray pixels, not one RGBA pixel
#pragma unroll
            for (int i = 0; i < 4; ++i) p[R + 4 * q + i].c[0] = bytes.c[i];
        }
    } else {
        static_assert(std::is_same_v<T, float> && N == 4, "f32: 4 pixels");
        const float4* v = reinterpret_cast<const float4*>(row);
        float l[4 * kSide], r[4 * kSide];
#pragma unroll
        for (int s = 0; s < kSide; ++s) {
            const float4 left = __ldg(v - (kSide - s));
            l[4 * s] = left.x, l[4 * s + 1] = left.y, l[4 * s + 2] = left.z, l[4 * s + 3] = left.w;
        }
        const float4 mid = __ldg(v);
#pragma unroll
        for (int s = 0; s < kSide; ++s) {
            const float4 right = __ldg(v + 1 + s);
            r[4 * s] = right.x, r[4 * s + 1] = right.y, r[4 * s + 2] = right.z, r[4 * s + 3] = right.w;
        }
#pragma unroll
        for (int e = 0; e < R; ++e) p[e].c[0] = l[4 * kSide - R + e], p[N + R + e].c[0] = r[e];
        p[R].c[0] = mid.x, p[R + 1].c[0] = mid.y, p[R + 2].c[0] = mid.z, p[R + 3].c[0] = mid.w;
    }
}

// Stores a gray quad's PY rows of N outputs at (x, yFirst): storePixel's
// arithmetic, N pixels to one store (u8: four bytes to a word) where the
// output has the input's depth, else a pixel at a time (u8 written as
// floats). The identity mapping is skipped on u8: it only turns -0 into +0,
// which rounds to the same value (f32 keeps it). storeByteQuad packs u8 rows
// alike; the gray kernels keep this copy, which takes the row's address
// before packing it, the order they were timed in.
template <class T, int N, int PY, int K>
__device__ __forceinline__ void storeGrayQuad(const KernelGeom& g, const KernelMath& m, int x, int yFirst,
                                              const Px<1> (&acc)[K][N][PY]) {
    constexpr bool kBytes = std::is_same_v<T, std::uint8_t>;
    if (kBytes && m.outFloat) {
#pragma unroll
        for (int j = 0; j < PY; ++j)
#pragma unroll
            for (int o = 0; o < N; ++o) storePixel<T, 1>(g, m, x + o, yFirst + j, acc[0][o][j], acc[K - 1][o][j]);
        return;
    }
    auto storeRows = [&](auto skipMapping) {
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            float v[N];
#pragma unroll
            for (int o = 0; o < N; ++o) {
                const float r = K > 1 ? magnitudeUnfused(acc[0][o][j].c[0], acc[K - 1][o][j].c[0]) : acc[0][o][j].c[0];
                v[o] = decltype(skipMapping)::value ? r : mappingUnfused(r, m.scale, m.offset, m.absolute);
            }
            unsigned char* out = g.dst + static_cast<std::size_t>(yFirst + j - g.outRow0) * g.dstPitch + x * sizeof(T);
            if constexpr (kBytes) {
                unsigned word[N / 4];
#pragma unroll
                for (int q = 0; q < N / 4; ++q)
                    word[q] = packLowBytes(saturateRound(v[4 * q], 255.0f), saturateRound(v[4 * q + 1], 255.0f),
                                           saturateRound(v[4 * q + 2], 255.0f), saturateRound(v[4 * q + 3], 255.0f));
                storeWords(out, word);
            } else {
                *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
            }
        }
    };
    if (kBytes && m.scale == 1.0f && m.offset == 0.0f && !m.absolute) storeRows(std::true_type{});
    else storeRows(std::false_type{});
}

// One input row of 4 adjacent BGR8 pixels and R neighbours each side as
// floats: the quad's 12 bytes and bgr8SideWords(R) words each side, 4-byte
// loads (a BGR quad starts on a word, not on a wider vector).
template <int R>
__device__ __forceinline__ void loadBgr8QuadRow(const unsigned char* row, Px<3> (&p)[4 + 2 * R]) {
    constexpr int kSide = bgr8SideWords(R), kWords = 3 + 2 * kSide;
    const unsigned* w = reinterpret_cast<const unsigned*>(row) - kSide;
    float bytes[4 * kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
        const Px<4> b = unpackRgba8(__ldg(w + i));  // four bytes, not one pixel
#pragma unroll
        for (int c = 0; c < 4; ++c) bytes[4 * i + c] = b.c[c];
    }
    constexpr int kFirst = 4 * kSide - 3 * R;  // byte of the first neighbour's first channel
#pragma unroll
    for (int i = 0; i < 4 + 2 * R; ++i)
#pragma unroll
        for (int c = 0; c < 3; ++c) p[i].c[c] = bytes[kFirst + 3 * i + c];
}

// One input row of N adjacent RGBA8 pixels (N = 2 or 4) and R neighbours
// each side as floats: one N-pixel load, and the neighbours from the N-pixel
// vectors each side (L1 hits as the next threads load them; a word each
// side at radius 1).
template <int N, int R>
__device__ __forceinline__ void loadRgba8QuadRow(const unsigned char* row, Px<4> (&p)[N + 2 * R]) {
    unsigned w[N + 2 * R];
    loadWords<N>(row, w + R);
    if constexpr (R == 1) {
        w[0] = __ldg(reinterpret_cast<const unsigned*>(row - 4));
        w[N + 1] = __ldg(reinterpret_cast<const unsigned*>(row + 4 * N));
    } else {
#pragma unroll
        for (int c = 0; c < (R + N - 1) / N; ++c) {
            unsigned left[N], right[N];
            loadWords<N>(row - 4 * N * (c + 1), left);
            loadWords<N>(row + 4 * N * (c + 1), right);
#pragma unroll
            for (int i = 0; i < N; ++i) {
                const int l = R - N * (c + 1) + i, r = R + N * (c + 1) + i;
                if (l >= 0) w[l] = left[i];
                if (r < N + 2 * R) w[r] = right[i];
            }
        }
    }
#pragma unroll
    for (int i = 0; i < N + 2 * R; ++i) p[i] = unpackRgba8(w[i]);
}

// Stores a colour quad's PY rows of N outputs at (x, yFirst): storePixel's
// arithmetic, the row's N x C bytes packed into words and stored at once
// (storeWords: one vector on RGBA8, three words on BGR8), or a pixel at a
// time where u8 is written as floats. As in storeGrayQuad, the identity
// mapping is skipped.
template <int C, int N, int PY, int K>
__device__ __forceinline__ void storeColourQuad(const KernelGeom& g, const KernelMath& m, int x, int yFirst,
                                                const Px<C> (&acc)[K][N][PY]) {
    if (m.outFloat) {
#pragma unroll
        for (int j = 0; j < PY; ++j)
#pragma unroll
            for (int o = 0; o < N; ++o)
                storePixel<std::uint8_t, C>(g, m, x + o, yFirst + j, acc[0][o][j], acc[K - 1][o][j]);
        return;
    }
    auto storeRows = [&](auto skipMapping) {
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            float v[N * C];  // the row's bytes in order
#pragma unroll
            for (int o = 0; o < N; ++o)
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    const float r = K > 1 ? magnitudeUnfused(acc[0][o][j].c[c], acc[K - 1][o][j].c[c])
                                          : acc[0][o][j].c[c];
                    v[o * C + c] = decltype(skipMapping)::value ? r : mappingUnfused(r, m.scale, m.offset, m.absolute);
                }
            unsigned word[N * C / 4];
#pragma unroll
            for (int q = 0; q < N * C / 4; ++q)
                word[q] = packLowBytes(saturateRound(v[4 * q], 255.0f), saturateRound(v[4 * q + 1], 255.0f),
                                       saturateRound(v[4 * q + 2], 255.0f), saturateRound(v[4 * q + 3], 255.0f));
            storeWords(g.dst + static_cast<std::size_t>(yFirst + j - g.outRow0) * g.dstPitch + x * C, word);
        }
    };
    if (m.scale == 1.0f && m.offset == 0.0f && !m.absolute) storeRows(std::true_type{});
    else storeRows(std::false_type{});
}

// What the quad kernels of both modes share for a layout (gray u8 or f32,
// BGR8, RGBA8): their span, one input row of N pixels and R neighbours each
// side as floats, and their stores.
template <class T, int C>
__device__ __forceinline__ QuadSpan layoutQuadSpan(const KernelGeom& g, const KernelMath& m, int pixels, int radius,
                                                   int rows) {
    return C == 1 ? grayQuadSpan(g, m, sizeof(T), pixels, radius, rows)
                  : colourQuadSpan(g, m, C, pixels, radius, rows);
}
template <class T, int C, int N, int R>
__device__ __forceinline__ void loadQuadPixels(const unsigned char* row, Px<C> (&p)[N + 2 * R]) {
    if constexpr (C == 1) loadGrayQuadRow<T, N, R>(row, p);
    else if constexpr (C == 3) loadBgr8QuadRow<R>(row, p);
    else loadRgba8QuadRow<N, R>(row, p);
}
template <class T, int C, int N, int PY, int K>
__device__ __forceinline__ void storeQuad(const KernelGeom& g, const KernelMath& m, int x, int yFirst,
                                          const Px<C> (&acc)[K][N][PY]) {
    if constexpr (C == 1) storeGrayQuad<T, N, PY, K>(g, m, x, yFirst, acc);
    else storeColourQuad<C, N, PY, K>(g, m, x, yFirst, acc);
}

}  // namespace
}  // namespace fs::gpu
