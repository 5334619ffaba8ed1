#pragma once
// The registers-mode kernels (see mode_registers.cu), compiled once per depth
// in registers_u8.cu, registers_u16.cu and registers_f32.cu so the variants
// build in parallel.
#include "constant_weights.cuh"
#include "device_common.cuh"
#include "quad_rows.cuh"
#include "kernel_variants.hpp"
#include "quad_frame.hpp"

namespace fs::gpu {

// The variant for (channels, kernels, radius 1..3 or -1 for run-time, rows
// per thread); nullptr when not built. Defined per depth.
template <class T> KernelRef registersKernelFor(int channels, int kernels, int radius, int rows);
// Each file has its own __constant__ weights; each fills its own copy.
template <class T> cudaError_t uploadRegistersWeights(const PreparedFilter& f, cudaStream_t stream);
// RGBA8 3x3 adjacent-pair kernel (registers_u8.cu).
KernelRef rgba8PairVariant(int rows, int kernels);
// 3x3 on 4-byte pixels, 4 adjacent pixels per thread: gray f32
// (registers_f32.cu) and RGBA8 (registers_u8.cu); nullptr when not built.
KernelRef grayF32QuadVariant(int rows, int kernels);
KernelRef rgba8QuadVariant(int rows, int kernels);
// Gray u8 3x3, `pixels` (4, or 16 with every variant) adjacent pixels per
// thread, and single 5x5 to 15x15 kernels, 4 pixels (registers_u8.cu);
// nullptr when not built.
KernelRef gray8QuadVariant(int radius, int pixels, int rows, int kernels);
// Gray f32 single 5x5 to 15x15 kernels, 4 adjacent pixels per thread
// (registers_f32.cu); nullptr when not built.
KernelRef grayF32WideVariant(int radius, int rows);
// RGBA8 3x3 in exact 16-bit integer lanes (PreparedFilter::packedLanes), 4
// adjacent pixels per thread (registers_lanes_u8.cu); nullptr when not built.
KernelRef rgba8LaneVariant(int rows, int kernels, bool clamps, bool gradientZeros, bool separableGradient);
// BGR u8 3x3, one kernel, in the same lanes: 16 adjacent bytes per thread,
// 2 rows (registers_lanes_u8.cu); nullptr when not built.
KernelRef bgr8LaneVariant(int rows, bool clamps);
// BGR u8 single 3x3 to 11x11 kernels, 4 adjacent pixels per thread, and RGBA8
// single 5x5 to 9x9 kernels, 2 or 4 (registers_u8.cu); nullptr when not built.
KernelRef bgr8QuadVariant(int radius, int rows);
KernelRef rgba8DenseQuadVariant(int radius, int pixels, int rows);
cudaError_t uploadLaneWeights(const PreparedFilter& f, cudaStream_t stream);

namespace {

// Adds window pixel v (input row i of a column's window, tap column kx) to
// each of the column's PY output rows that it feeds, for every kernel.
template <int PY, int K, int C>
__device__ __forceinline__ void accumulateTap(Px<C> (&acc)[K][PY], const Px<C>& v, int i, int kx, int kw, int kh) {
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        const int ky = i - j;
        if (ky < 0 || ky >= kh) continue;
#pragma unroll
        for (int k = 0; k < K; ++k) madd(acc[k][j], c_weights[k * (kw * kh) + ky * kw + kx], v);
    }
}

// One source row y (window row i) of an edge column's taps.
template <class T, int C, int PY, int K>
__device__ __forceinline__ void registersEdgeRow(const KernelGeom& g, Px<C> (&acc)[K][PY], int i, int x, int y, int rx,
                                                 int kw, int kh, bool interior) {
    const T* row = interior ? reinterpret_cast<const T*>(sourceRow(g, y)) + (x - rx) * C : nullptr;
#pragma unroll
    for (int kx = 0; kx < kw; ++kx) {
        const Px<C> v = interior ? loadChannels<T, C, true>(row + kx * C) : loadPixel<T, C>(g, x + kx - rx, y);
        accumulateTap(acc, v, i, kx, kw, kh);
    }
}

// One column of PY outputs (see the kernel below).
template <class T, int C, int RX, int RY, int PY, int K>
__device__ __forceinline__ void registersColumn(const KernelGeom& g, const KernelMath& m, int x, int yFirst) {
    const int rx = RX >= 0 ? RX : m.kw / 2;
    const int ry = RY >= 0 ? RY : m.kh / 2;
    const int kw = 2 * rx + 1, kh = 2 * ry + 1;
    const int outEnd = g.outRow0 + g.outRows;
    const int rowsNeeded = min(PY, outEnd - yFirst) + 2 * ry;  // never read past this launch's rows + halo
    const bool interior = x >= rx && x + rx < g.width && yFirst >= ry && yFirst + rowsNeeded - ry <= g.imageHeight;

    Px<C> acc[K][PY];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[k][j] = splat<C>(0.0f);
    if (RX >= 0 && RY >= 0 && interior && rowsNeeded == PY + kh - 1) {
        // The common case, free of conditions, so the compiler can issue the
        // loads of many rows before the first multiply-add needs them.
        const T* base = reinterpret_cast<const T*>(sourceRow(g, yFirst - ry)) + (x - rx) * C;
        // Rows inside the image are consecutive in the source buffer, also in
        // a wrap-border strip (it wraps only between image rows H-1 and 0).
#pragma unroll
        for (int i = 0; i < PY + kh - 1; ++i) {
            const T* row = reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(base) + i * g.srcPitch);
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) accumulateTap(acc, loadChannels<T, C, true>(row + kx * C), i, kx, kw, kh);
        }
#pragma unroll
        for (int j = 0; j < PY; ++j) storePixel<T, C>(g, m, x, yFirst + j, acc[0][j], acc[K - 1][j]);
        return;
    }
    // Threads at the image edges and in short last rows: fully unrolled at
    // 3x3 (the integer-lane kernels' edge pixels come here), a row at a time above,
    // where an unrolled copy per architecture cost far more compile time than
    // the few edge warps gain (gpu/README.md, "Kept variants"). A plain
    // `#pragma unroll` at 3x3, as before the edge path was cut: with
    // `unroll PY + 2` the loop stayed rolled, its sums spilled and every 3x3
    // kernel ran slower (docs/performance.md).
    if constexpr (RX == 1 && RY == 1) {
#pragma unroll
        for (int i = 0; i < PY + kh - 1; ++i) {
            if (i >= rowsNeeded) break;
            registersEdgeRow<T, C, PY, K>(g, acc, i, x, yFirst - ry + i, rx, kw, kh, interior);
        }
    } else {
#pragma unroll 1
        for (int i = 0; i < PY + kh - 1; ++i) {
            if (i >= rowsNeeded) break;
            registersEdgeRow<T, C, PY, K>(g, acc, i, x, yFirst - ry + i, rx, kw, kh, interior);
        }
    }
#pragma unroll
    for (int j = 0; j < PY; ++j)
        if (yFirst + j < outEnd) storePixel<T, C>(g, m, x, yFirst + j, acc[0][j], acc[K - 1][j]);
}

// perThreadX columns strided by the block width, PY consecutive rows each.
template <class T, int C, int RX, int RY, int PY, int K>
__global__ void __launch_bounds__(256) registersKernel(KernelGeom g, KernelMath m, int perThreadX) {
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    if (yFirst >= g.outRow0 + g.outRows) return;
    const int x0 = blockIdx.x * blockDim.x * perThreadX + threadIdx.x;
    if (perThreadX == 1) {  // the 5x5/7x7 default: straight-line code, no loop around it
        if (x0 < g.width) registersColumn<T, C, RX, RY, PY, K>(g, m, x0, yFirst);
        return;
    }
#pragma unroll 1
    for (int i = 0; i < perThreadX; ++i) {
        const int x = x0 + i * blockDim.x;
        if (x >= g.width) return;
        registersColumn<T, C, RX, RY, PY, K>(g, m, x, yFirst);
    }
}

// Square kernels of radius R computing N adjacent pixels x PY rows per
// thread: adds input row i (p: the N pixels and R neighbours each side) to
// every sum it feeds.
template <int R, int N, int PY, int K, int C>
__device__ __forceinline__ void accumulateRow(Px<C> (&acc)[K][N][PY], const Px<C> (&p)[N + 2 * R], int i) {
    constexpr int kw = 2 * R + 1;
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        const int ky = i - j;
        if (ky < 0 || ky >= kw) continue;
#pragma unroll
        for (int kx = 0; kx < kw; ++kx)
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const float w = c_weights[k * kw * kw + ky * kw + kx];
#pragma unroll
                for (int o = 0; o < N; ++o) madd(acc[k][o][j], w, p[o + kx]);
            }
    }
}

// RGBA8 3x3: each thread computes two neighbouring pixels from one 8-byte load
// of the pair and two 4-byte loads of its neighbours per row, half the load
// instructions (and converted pixels) of one pixel per thread. The unused int
// keeps registersKernel's parameters, so one launch call serves every variant.
template <int PY, int K>
__global__ void __launch_bounds__(256) rgba8PairKernel(KernelGeom g, KernelMath m, int) {
    using T = std::uint8_t;
    const int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    const int outEnd = g.outRow0 + g.outRows;
    if (x >= g.width || yFirst >= outEnd) return;
    const int rowsNeeded = min(PY, outEnd - yFirst) + 2;  // never read past this launch's rows + halo
    const bool aligned = ((g.srcPitch | reinterpret_cast<std::uintptr_t>(g.src)) & 7u) == 0;
    const bool interior = aligned && x >= 1 && x + 2 < g.width && yFirst >= 1 &&
                          yFirst + rowsNeeded - 1 <= g.imageHeight && rowsNeeded == PY + 2;
    if (interior) {
        Px<4> acc[K][2][PY];
        zeroSums(acc);
        // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
        const unsigned char* base = sourceRow(g, yFirst - 1) + (x - 1) * 4;
#pragma unroll
        for (int i = 0; i < PY + 2; ++i) {
            const unsigned char* row = base + i * g.srcPitch;
            const unsigned left = __ldg(reinterpret_cast<const unsigned*>(row));
            const uint2 pair = __ldg(reinterpret_cast<const uint2*>(row + 4));
            const unsigned right = __ldg(reinterpret_cast<const unsigned*>(row + 12));
            const Px<4> p[4] = {unpackRgba8(left), unpackRgba8(pair.x), unpackRgba8(pair.y), unpackRgba8(right)};
            accumulateRow<1, 2, PY, K>(acc, p, i);
        }
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            storePixel<T, 4>(g, m, x, yFirst + j, acc[0][0][j], acc[K - 1][0][j]);
            storePixel<T, 4>(g, m, x + 1, yFirst + j, acc[0][1][j], acc[K - 1][1][j]);
        }
        return;
    }
    // Near the edges: each of the two pixels through fs::borderIndex.
    for (int o = 0; o < 2 && x + o < g.width; ++o) {
        Px<4> acc[K][PY];
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int j = 0; j < PY; ++j) acc[k][j] = splat<4>(0.0f);
#pragma unroll
        for (int i = 0; i < PY + 2; ++i) {
            if (i >= rowsNeeded) break;
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) accumulateTap(acc, loadPixel<T, 4>(g, x + o + kx - 1, yFirst - 1 + i), i, kx, 3, 3);
        }
#pragma unroll
        for (int j = 0; j < PY; ++j)
            if (yFirst + j < outEnd) storePixel<T, 4>(g, m, x + o, yFirst + j, acc[0][j], acc[K - 1][j]);
    }
}

// 4-byte pixels (one f32 sample or four u8 channels) as floats.
template <int C> __device__ __forceinline__ Px<C> unpackWord(unsigned w) {
    if constexpr (C == 1) {
        Px<1> p;
        p.c[0] = __uint_as_float(w);
        return p;
    } else {
        return unpackRgba8(w);
    }
}

// Where a quad's left and right neighbour columns are, in bytes from its
// first pixel: -4 and 16 inside the image; at its left or right edge, the
// columns fs::borderIndexNear maps them to.
struct QuadNeighbours {
    int left = -4, right = 16;
};

// The start the 4-adjacent-pixel integer-lane kernels share
// (registers_lanes_u8.cu; the float quads take quad_frame.hpp's frame
// instead): this thread's first pixel x and first row yFirst; true when the
// 4 pixels, a neighbour each side and the rows above and below lie inside
// the image and this launch, and
// `alignBits` (the pitches and pointers the caller reads or writes as 16-byte
// vectors) is 16-byte aligned. Otherwise its pixels are computed here through
// the one-column path (fs::borderIndex) and the caller returns. A quad at
// the left or right edge that is otherwise inside also returns true, its
// outside neighbour mapped in `neighbours` (not for a constant border, whose
// value is no column): it runs as fast as the rest instead of holding its
// warp in the one-column path, where one edge thread per warp cost a large
// share of the RGBA8 magnitude's instructions.
template <class T, int C, int PY, int K>
__device__ __forceinline__ bool quadInterior(const KernelGeom& g, const KernelMath& m, std::uintptr_t alignBits, int& x,
                                             int& yFirst, QuadNeighbours& neighbours) {
    x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    const int outEnd = g.outRow0 + g.outRows;
    if (x >= g.width || yFirst >= outEnd) return false;
    const bool rowsInside = (alignBits & 15u) == 0 && yFirst >= 1 && yFirst + PY + 1 <= g.imageHeight &&
                            yFirst + PY <= outEnd;
    bool interior = rowsInside && x >= 1 && x + 4 < g.width;
    if (rowsInside && !interior && x + 4 <= g.width && g.border != BorderMode::Constant) {
        neighbours.left = 4 * (borderIndexNear(x - 1, g.width, g.border) - x);
        neighbours.right = 4 * (borderIndexNear(x + 4, g.width, g.border) - x);
        interior = true;
    }
    if (!interior) {
#pragma unroll 1
        for (int o = 0; o < 4 && x + o < g.width; ++o) registersColumn<T, C, 1, 1, PY, K>(g, m, x + o, yFirst);
    }
    return interior;
}

// One input row of a 4-pixel quad: the left neighbour, the 4 pixels (one
// 16-byte load) and the right neighbour (L1 hits: the next threads' vectors).
__device__ __forceinline__ void loadQuadRow(const unsigned char* row, unsigned (&w)[6],
                                            QuadNeighbours at = QuadNeighbours{}) {
    const unsigned left = __ldg(reinterpret_cast<const unsigned*>(row + at.left));
    const uint4 mid = __ldg(reinterpret_cast<const uint4*>(row));
    const unsigned right = __ldg(reinterpret_cast<const unsigned*>(row + at.right));
    w[0] = left, w[1] = mid.x, w[2] = mid.y, w[3] = mid.z, w[4] = mid.w, w[5] = right;
}

// The dense quads' frame (quad_rows.cuh): each output's taps through
// fs::borderIndex, a kernel row at a time. True when this block is the frame's.
template <class T, int C, int R, int PY, int K>
__device__ __forceinline__ bool quadFrameBlock(const KernelGeom& g, const KernelMath& m, const QuadFrame& frame,
                                               int frameBlockRows) {
    return quadFrameBlock<PY>(g, frame, frameBlockRows, [&](int x, int y) {
        constexpr int kw = 2 * R + 1;
        Px<C> acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = splat<C>(0.0f);
#pragma unroll 1
        for (int ky = 0; ky < kw; ++ky)
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) {
                const Px<C> v = loadPixel<T, C>(g, x + kx - R, y + ky - R);
#pragma unroll
                for (int k = 0; k < K; ++k) madd(acc[k], c_weights[k * kw * kw + ky * kw + kx], v);
            }
        storePixel<T, C>(g, m, x, y, acc[0], acc[K - 1]);
    });
}

// 3x3 on 4-byte pixels (gray f32, RGBA8): each thread computes 4 adjacent
// pixels of PY rows from one 16-byte load per input row plus its two 4-byte
// neighbours (loadQuadRow), 4x the bytes per load instruction of the
// one-column kernel. Outputs are stored as one 16-byte vector where the rows
// are aligned. The quads of pixelQuadSpan; the leading frameBlockRows rows
// of blocks compute the rest (quadFrameBlock).
template <class T, int C, int PY, int K>
__global__ void __launch_bounds__(256) quadKernel(KernelGeom g, KernelMath m, int frameBlockRows) {
    static_assert(sizeof(T) * C == 4, "4-byte pixels only");
    const QuadSpan span = pixelQuadSpan(g, PY);
    if (quadFrameBlock<T, C, 1, PY, K>(g, m, quadFrame(g, 4, PY, span), frameBlockRows)) return;
    const int qx = blockIdx.x * blockDim.x + threadIdx.x;
    const int qy = (blockIdx.y - frameBlockRows) * blockDim.y + threadIdx.y;
    if (!span.contains(qx, qy)) return;
    const int x = 4 * qx, yFirst = g.outRow0 + qy * PY;
    Px<C> acc[K][4][PY];
    zeroSums(acc);
    // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
    const unsigned char* base = sourceRow(g, yFirst - 1) + x * 4;
#pragma unroll
    for (int i = 0; i < PY + 2; ++i) {
        unsigned w[6];
        loadQuadRow(base + i * g.srcPitch, w);
        const Px<C> p[6] = {unpackWord<C>(w[0]), unpackWord<C>(w[1]), unpackWord<C>(w[2]),
                            unpackWord<C>(w[3]), unpackWord<C>(w[4]), unpackWord<C>(w[5])};
        accumulateRow<1, 4, PY, K>(acc, p, i);
    }
    const bool dstAligned = ((g.dstPitch | reinterpret_cast<std::uintptr_t>(g.dst)) & 15u) == 0;
    // 16-byte stores where the output pixel is 4 bytes: f32 gray, or RGBA8 written as u8.
    const bool vectorStore = dstAligned && (C == 1 || !m.outFloat);
    if (!vectorStore) {
#pragma unroll
        for (int j = 0; j < PY; ++j)
#pragma unroll
            for (int o = 0; o < 4; ++o) storePixel<T, C>(g, m, x + o, yFirst + j, acc[0][o][j], acc[K - 1][o][j]);
        return;
    }
    // storePixel's arithmetic, packed into 16-byte stores. Integer outputs skip
    // the identity mapping (scale 1, offset 0): it changes only -0 to +0,
    // which rounds to the same integer.
    auto storeRows = [&](auto skipMapping) {
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            unsigned word[4];
#pragma unroll
            for (int o = 0; o < 4; ++o) {
                float v[C];
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    const float r = K > 1 ? magnitudeUnfused(acc[0][o][j].c[c], acc[K - 1][o][j].c[c])
                                          : acc[0][o][j].c[c];
                    v[c] = decltype(skipMapping)::value ? r : mappingUnfused(r, m.scale, m.offset, m.absolute);
                }
                if constexpr (C == 1) {
                    word[o] = __float_as_uint(v[0]);  // T is float: stored as is
                } else {
                    word[o] = packLowBytes(saturateRound(v[0], 255.0f), saturateRound(v[1], 255.0f),
                                           saturateRound(v[2], 255.0f), saturateRound(v[3], 255.0f));
                }
            }
            unsigned char* out = g.dst + static_cast<std::size_t>(yFirst + j - g.outRow0) * g.dstPitch + x * 4;
            *reinterpret_cast<uint4*>(out) = make_uint4(word[0], word[1], word[2], word[3]);
        }
    };
    if constexpr (C == 4) {
        if (m.scale == 1.0f && m.offset == 0.0f && !m.absolute) {
            storeRows(std::true_type{});
            return;
        }
    }
    storeRows(std::false_type{});
}

// One square kernel of radius R, or a magnitude pair, N adjacent pixels per
// thread, on one layout (quad_rows.cuh: loadQuadPixels, storeQuad):
// - gray u8 (N = 4, 8 or 16; 3x3 to 15x15): one N-byte load per input row
//   and the words each side, one N-byte store per output row, where the
//   one-column kernel read a byte per tap;
// - gray f32 (N = 4; 5x5 to 15x15, 3x3 runs quadKernel): 16-byte vectors;
// - BGR8 (N = 4; 3x3 to 11x11): the quad's 12 bytes and the words each side,
//   three 4-byte stores per output row;
// - RGBA8 (N = 2 or 4; 5x5 to 9x9): one N-pixel vector and the vectors each
//   side, one vector store per output row.
// The quads of layoutQuadSpan; the leading frameBlockRows rows of blocks
// compute the rest (quadFrameBlock).
template <class T, int C, int N, int R, int PY, int K>
__global__ void __launch_bounds__(256) denseQuadKernel(KernelGeom g, KernelMath m, int frameBlockRows) {
    constexpr bool kBytes = std::is_same_v<T, std::uint8_t>;
    static_assert(C == 1 ? (kBytes ? (N == 4 || N == 8 || N == 16) : (std::is_same_v<T, float> && N == 4 && R >= 2))
                         : (kBytes && (C == 3 ? N == 4 : (C == 4 && (N == 2 || N == 4)))),
                  "gray u8: 4, 8 or 16 pixels; gray f32: 4, from 5x5; BGR8: 4; RGBA8: 2 or 4");
    const QuadSpan span = layoutQuadSpan<T, C>(g, m, N, R, PY);
    if (quadFrameBlock<T, C, R, PY, K>(g, m, quadFrame(g, N, PY, span), frameBlockRows)) return;
    const int qx = blockIdx.x * blockDim.x + threadIdx.x;
    const int qy = (blockIdx.y - frameBlockRows) * blockDim.y + threadIdx.y;
    if (!span.contains(qx, qy)) return;
    const int x = N * qx, yFirst = g.outRow0 + qy * PY;
    Px<C> acc[K][N][PY];
    zeroSums(acc);
    // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
    const unsigned char* base = sourceRow(g, yFirst - R) + x * C * sizeof(T);
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        Px<C> p[N + 2 * R];
        loadQuadPixels<T, C, N, R>(base + i * g.srcPitch, p);
        accumulateRow<R, N, PY, K>(acc, p, i);
    }
    storeQuad<T, C, N, PY, K>(g, m, x, yFirst, acc);
}

// Compiled radius: the default rows only (kernel_variants.hpp), unless every variant is built.
// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&registersKernel<float, 1, 1, 1, 4, 1>), GeomMathIntKernel>);
static_assert(std::is_same_v<decltype(&rgba8PairKernel<2, 1>), GeomMathIntKernel>);
static_assert(std::is_same_v<decltype(&quadKernel<float, 1, 2, 1>), GeomMathIntKernel>);
static_assert(std::is_same_v<decltype(&denseQuadKernel<float, 1, 4, 4, 2, 1>), GeomMathIntKernel>);

template <class T, int C, int K> KernelRef registersVariant(int radius, int rows) {
    auto pick = [&](auto r) -> KernelRef {
        constexpr int R = decltype(r)::value;
        // 3x3 gray f32, gray u8 and RGBA8 run as adjacent pixels (quadKernel, denseQuadKernel,
        // rgba8PairKernel, the lanes).
        constexpr bool adjacentPixels = R == 1 && ((std::is_same_v<T, float> && C == 1) ||
                                                   (std::is_same_v<T, std::uint8_t> && (C == 1 || C == 4)));
        if constexpr (!kAllVariants && (adjacentPixels || !registersRadiusBuilt(R, sizeof(T), C, K))) {
            return nullptr;
        } else if constexpr (!kAllVariants) {
            constexpr int kept = registersDefaultRows(R, C * K);
            return rows == kept ? registersKernel<T, C, R, R, kept, K> : nullptr;
        } else {
            switch (rows) {
            case 2: return registersKernel<T, C, R, R, 2, K>;
            case 4: return registersKernel<T, C, R, R, 4, K>;
            case 8: return registersKernel<T, C, R, R, 8, K>;
            default:
                if constexpr (C * K <= 2) return registersKernel<T, C, R, R, 16, K>;
                return nullptr;
            }
        }
    };
    switch (radius) {
    case 1: return pick(std::integral_constant<int, 1>{});
    case 2: return pick(std::integral_constant<int, 2>{});
    case 3: return pick(std::integral_constant<int, 3>{});
    default: return registersKernel<T, C, -1, -1, 4, K>;
    }
}

}  // namespace

#define FS_REGISTERS_DEPTH(T)                                                                                \
    template <> KernelRef registersKernelFor<T>(int channels, int kernels, int radius, int rows) {          \
        KernelRef k = nullptr;                                                                              \
        detail::forChannelsKernels(channels, kernels, [&](auto c, auto n) {                                   \
            k = registersVariant<T, decltype(c)::value, decltype(n)::value>(radius, rows);                    \
        });                                                                                                   \
        return k;                                                                                             \
    }                                                                                                         \
    template <> cudaError_t uploadRegistersWeights<T>(const PreparedFilter& f, cudaStream_t stream) {         \
        return uploadConstantWeights(f, stream);                                                              \
    }

}  // namespace fs::gpu
