// Mode "separable": rank-1 kernels (Gaussian, box, Sobel components) as a row
// pass then a column pass, kw + kh multiply-adds per pixel instead of kw * kh;
// the intermediate never reaches device memory. Three paths:
// - quads (separable_quads.cu: one square kernel from 3x3 to 9x9, on gray
//   u8 to 13x13 and f32 to 11x11, or a magnitude pair to 7x7, on gray u8 and
//   f32, BGR8 and RGBA8): 2 to 8 adjacent pixels x a column of rows per
//   thread, each input row filtered in registers; the default for what they
//   run.
// - rolling strip (one square kernel from 5x5 to 31x31 that the quads do not
//   run; gray, and 8-bit colour): each block walks down a strip of 128 gray
//   or 32 colour pixels, row-filters each input row once into a ring of the
//   last rows' results in shared memory and column-filters from that ring, so
//   every input row is read once per segment instead of once per tile plus
//   halo; the next rows' loads are in flight while the current ones are
//   filtered.
// - fused tile (everything else): the block loads its tile with halo into
//   shared memory, filters its rows into a second buffer, then its columns.
#include <string>
#include <utility>

#include "device_common.cuh"
#include "kernel_variants.hpp"
#include "quad_frame.hpp"
#include "separable_quads.hpp"

namespace fs::gpu {
namespace {

__constant__ float c_rowWeights[kMaxKernels * kMaxKernelSize];
__constant__ float c_columnWeights[kMaxKernels * kMaxKernelSize];

// The gray row passes of both paths filter O neighbouring pixels from one
// register window read from shared memory as float4s: a fraction of the
// shared-memory loads of one pixel per thread.
template <int N> __device__ __forceinline__ void loadWindow(const float* s, float (&v)[N]) {
    static_assert(N % 4 == 0, "whole float4s");
#pragma unroll
    for (int i = 0; i < N; i += 4) {
        const float4 q = *reinterpret_cast<const float4*>(s + i);
        v[i] = q.x, v[i + 1] = q.y, v[i + 2] = q.z, v[i + 3] = q.w;
    }
}
// acc[o] = sum over k of weights[k] * v[o + kFirst + k], k = 0 .. 2R.
template <int R, int kFirst, int O, int N>
__device__ __forceinline__ void filterWindow(const float (&v)[N], const float* weights, float (&acc)[O]) {
#pragma unroll
    for (int o = 0; o < O; ++o) acc[o] = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * R; ++k)
#pragma unroll
        for (int o = 0; o < O; ++o) acc[o] = fmaf(weights[k], v[o + kFirst + k], acc[o]);
}
template <int O> __device__ __forceinline__ void storeWindow(float* s, const float (&acc)[O]) {
#pragma unroll
    for (int o = 0; o < O; o += 4) *reinterpret_cast<float4*>(s + o) = make_float4(acc[o], acc[o + 1], acc[o + 2], acc[o + 3]);
}

template <int C, int RX, int RY, int PY, int K>
__global__ void __launch_bounds__(512) separableKernel(KernelGeom g, KernelMath m, int perThreadHalo) {
    extern __shared__ float4 sharedRaw[];
    const int rx = RX >= 0 ? RX : m.kw / 2;
    const int ry = RY >= 0 ? RY : m.kh / 2;
    const int kw = 2 * rx + 1, kh = 2 * ry + 1;
    const int tileW = blockDim.x, tileH = blockDim.y * PY;
    const int winW = tileW + 2 * rx, winH = tileH + 2 * ry;
    const int inStride = (winW * C + 3) / 4 * 4, midStride = tileW * C;  // rows start 16-byte aligned
    float* in = reinterpret_cast<float*>(sharedRaw);
    float* mid = in + winH * inStride;  // K planes of winH x tileW pixels
    const int x0 = blockIdx.x * tileW;
    const int yTile = g.outRow0 + blockIdx.y * tileH;
    loadTileAnyDepth<C>(perThreadHalo != 0, in, inStride, g, m, x0 - rx, yTile - ry, winW,
                        windowRows(g, yTile, tileH, ry));
    __syncthreads();

    const int tx = threadIdx.x;
    const int rows = windowRows(g, yTile, tileH, ry);
    if constexpr (C == 1 && RX >= 0) {
        // Gray, fixed radius: each thread filters 4 neighbouring pixels of a
        // row (loadWindow, filterWindow), a quarter of the shared-memory
        // traffic of one pixel per thread.
        constexpr int kSpan = (4 + 2 * RX + 3) / 4 * 4;
        const int tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
        const int groups = tileW / 4;
        for (int item = tid; item < rows * groups; item += threads) {
            const int r = item / groups, gx = (item - r * groups) * 4;
            float v[kSpan];
            loadWindow(in + r * inStride + gx, v);
#pragma unroll
            for (int k = 0; k < K; ++k) {
                float acc[4];
                filterWindow<RX, 0>(v, c_rowWeights + k * kMaxKernelSize, acc);
                storeWindow(mid + (k * winH + r) * midStride + gx, acc);
            }
        }
    } else {
        for (int r = threadIdx.y; r < rows; r += blockDim.y) {
            const float* srow = in + r * inStride + tx * C;
            Px<C> acc[K];
#pragma unroll
            for (int k = 0; k < K; ++k) acc[k] = splat<C>(0.0f);
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) {
                const Px<C> v = loadShared<C>(srow + kx * C);
#pragma unroll
                for (int k = 0; k < K; ++k) madd(acc[k], c_rowWeights[k * kMaxKernelSize + kx], v);
            }
#pragma unroll
            for (int k = 0; k < K; ++k) storeShared<C>(mid + (k * winH + r) * midStride + tx * C, acc[k]);
        }
    }
    __syncthreads();

    const int firstRow = threadIdx.y * PY;
    Px<C> acc[K][PY];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[k][j] = splat<C>(0.0f);
#pragma unroll
    for (int i = 0; i < PY + kh - 1; ++i) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const Px<C> v = loadShared<C>(mid + (k * winH + firstRow + i) * midStride + tx * C);
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky >= 0 && ky < kh) madd(acc[k][j], c_columnWeights[k * kMaxKernelSize + ky], v);
            }
        }
    }
    const int x = x0 + tx;
    if (x >= g.width) return;
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        const int y = yTile + firstRow + j;
        if (y < g.outRow0 + g.outRows) storePixelAnyDepth<C>(g, m, x, y, acc[0][j], acc[K - 1][j]);
    }
}

// ---- Rolling strip path ----------------------------------------------------
// The strip's column store, storePixel's arithmetic for one kernel's gray
// column: v[j] goes to (x, y + j) for j < rows. The row address is computed
// once and advanced by the pitch instead of once per pixel (a 64-bit
// multiply each). Integer outputs skip the identity mapping, which only
// turns -0 into +0, rounded alike; with it the BGR8 strip needed 86-96
// registers and fitted 3 blocks an SM instead of 4 (docs/performance.md).
template <class T, int N>
__device__ __forceinline__ void storeColumn(const KernelGeom& g, const KernelMath& m, int x, int y, int rows,
                                            const float (&v)[N]) {
    auto store = [&](auto tag, auto skipMapping) {
        using TO = decltype(tag);
        unsigned char* p = g.dst + static_cast<std::size_t>(y - g.outRow0) * g.dstPitch + x * sizeof(TO);
#pragma unroll
        for (int j = 0; j < N; ++j, p += g.dstPitch)
            if (j < rows)
                *reinterpret_cast<TO*>(p) = PixelTraits<TO>::store(
                    decltype(skipMapping)::value ? v[j] : mappingUnfused(v[j], m.scale, m.offset, m.absolute));
    };
    if (std::is_same_v<T, float> || m.outFloat) store(float{}, std::false_type{});
    else if (m.scale == 1.0f && m.offset == 0.0f && !m.absolute) store(T{}, std::true_type{});
    else store(T{}, std::false_type{});
}

// A strip row holds kLanes floats: C channels of stripPixels(C) pixels. In
// shared memory each channel is a plane of its own, so the row pass of every
// layout is the gray one (float4 windows of 8 outputs); the column pass maps
// its threads back to interleaved channels, so its stores stay coalesced.
constexpr int kStripW = 128;       // gray: output columns per block
constexpr int kStepRows = 32;      // input rows loaded and row-filtered per step
constexpr int kRingRows = 64;      // row-pass results kept: >= kStepRows + 2R, a power of two
constexpr int kStripRowsPerThread = 16;  // column-pass outputs per thread: kStepRows / 2
constexpr int kRowOutputs = 8;     // row-pass outputs per item, a multiple of 4: 8 need fewer window loads per output

// Every radius is compiled: the taps' loops unroll into straight FMAs, with
// no predicate per tap.
// Colour strips are 32 pixels wide: 96 or 128 lanes, the ring within 3 blocks' shared memory.
constexpr int stripPixels(int channels) { return channels == 1 ? kStripW : 32; }
constexpr int stripLanes(int channels) { return channels * stripPixels(channels); }
constexpr int stripThreads(int channels) { return 2 * stripLanes(channels); }  // two 16-row halves of a step
// Ring planes padded so that a warp's 32 interleaved lanes read distinct banks
// (4 channels; at most 2-way for 3), and a multiple of 4 for float4 stores.
constexpr int stripPlaneStride(int channels) { return channels == 1 ? kStripW : channels == 3 ? 44 : 40; }
constexpr int stripPad(int radius) { return (radius + 3) / 4 * 4; }  // halo rounded to float4
constexpr int stripInW(int radius, int channels) { return stripPixels(channels) + 2 * stripPad(radius); }
constexpr std::size_t stripBytes(int radius, int channels) {
    return static_cast<std::size_t>(kStepRows * channels * stripInW(radius, channels) +
                                    kRingRows * channels * stripPlaneStride(channels)) *
           sizeof(float);
}

template <class T, int C, int R>
__global__ void __launch_bounds__(stripThreads(C), C == 1 ? 4 : 3) stripKernel(KernelGeom g, KernelMath m, int segmentRows) {
    static_assert(2 * R <= kStepRows && kStepRows + 2 * R <= kRingRows, "ring too small for this radius");
    constexpr int kPixels = stripPixels(C), kLanes = stripLanes(C), kThreads = stripThreads(C);
    constexpr int kPlane = stripPlaneStride(C), kRingW = C * kPlane;
    static_assert(kStepRows * kLanes == kThreads * kStripRowsPerThread, "each thread: one lane, 16 rows");
    constexpr int kPad = stripPad(R), kInW = stripInW(R, C);
    extern __shared__ float4 sharedRaw[];
    float* in = reinterpret_cast<float*>(sharedRaw);  // C planes of kStepRows x kInW: pixels x0 - kPad ...
    float* ring = in + C * kStepRows * kInW;          // kRingRows x (C planes of kPlane) row-pass results
    const int tid = threadIdx.x;
    const int x0 = blockIdx.x * kPixels;
    const int yStart = g.outRow0 + blockIdx.y * segmentRows;
    const int yEnd = min(yStart + segmentRows, g.outRow0 + g.outRows);
    const int yIn0 = yStart - R;              // input row of ring row 0
    const int inRows = yEnd - yStart + 2 * R;  // never past the last output row + halo (all a strip holds)
    const int steps = 1 + (yEnd - yStart + kStepRows - 1) / kStepRows;
    // Step 0 loads the first 2R input rows; step s >= 1 the next kStepRows and
    // then writes output rows yStart + (s - 1) * kStepRows ...
    auto firstRow = [](int step) { return step == 0 ? 0 : 2 * R + (step - 1) * kStepRows; };
    auto rowCount = [](int step) { return step == 0 ? 2 * R : kStepRows; };

    // Each item: 4 neighbouring pixels of a row, C vectors of 4 values, fetched
    // one step ahead. Gray items keep 4 floats, the image's edges and border
    // rows resolved when fetched; colour ones keep their raw vectors (a register
    // per vector at 8 bits), and items at the image's left or right edge, border
    // rows and rows past the strip are filled when stashed, those loads then
    // not overlapped (H100: raw gray f32 vectors ran 4-9 % slower).
    using V = typename Vec4<T>::type;
    constexpr bool kRaw = C > 1;
    constexpr int kGroups = kInW / 4;
    constexpr int kLoadItems = (kStepRows * kGroups + kThreads - 1) / kThreads;
    // One raw vector as 4 floats.
    auto unpack = [](const V& q, float* v) {
        v[0] = static_cast<float>(q.x), v[1] = static_cast<float>(q.y);
        v[2] = static_cast<float>(q.z), v[3] = static_cast<float>(q.w);
    };
    // The 4 x C values of item b, edges and borders resolved.
    auto resolve = [&](int step, int b, float (&v)[4 * C]) {
        const int item = tid + b * kThreads, rel0 = firstRow(step);
        const int r = item / kGroups, x = x0 - kPad + (item - r * kGroups) * 4;
        const bool inStrip = r < rowCount(step) && rel0 + r < inRows;
        const int iy = inStrip ? borderIndex(yIn0 + rel0 + r, g.imageHeight, g.border) : -1;
        const T* row = iy < 0 ? nullptr : reinterpret_cast<const T*>(sourceRow(g, iy));
        if (row && x >= 0 && x + 4 <= g.width && reinterpret_cast<std::uintptr_t>(row + x * C) % sizeof(V) == 0) {
#pragma unroll
            for (int c = 0; c < C; ++c) unpack(__ldg(reinterpret_cast<const V*>(row + x * C) + c), v + 4 * c);
            return;
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int ix = row ? borderIndex(x + k, g.width, g.border) : -1;
#pragma unroll
            for (int c = 0; c < C; ++c)
                v[k * C + c] = !inStrip ? 0.0f : ix < 0 ? g.borderValue : static_cast<float>(__ldg(row + ix * C + c));
        }
    };
    enum : unsigned char { kFetched, kAtStash };
    V raw[kRaw ? kLoadItems : 1][C];
    unsigned char how[kLoadItems];
    float early[kRaw ? 1 : kLoadItems][4 * C];
    auto fetch = [&](int step) {
        const int rel0 = firstRow(step), count = rowCount(step);
#pragma unroll
        for (int b = 0; b < kLoadItems; ++b) {
            const int item = tid + b * kThreads;
            if (item >= kStepRows * kGroups) continue;
            if constexpr (!kRaw) {
                resolve(step, b, early[b]);
            } else {
                const int r = item / kGroups, x = x0 - kPad + (item - r * kGroups) * 4;
                how[b] = kAtStash;
                if (r >= count || rel0 + r >= inRows || x < 0 || x + 4 > g.width) continue;
                const int iy = borderIndex(yIn0 + rel0 + r, g.imageHeight, g.border);
                if (iy < 0) continue;
                const V* p = reinterpret_cast<const V*>(reinterpret_cast<const T*>(sourceRow(g, iy)) + x * C);
                if (reinterpret_cast<std::uintptr_t>(p) % sizeof(V) != 0) continue;
#pragma unroll
                for (int c = 0; c < C; ++c) raw[b][c] = __ldg(p + c);
                how[b] = kFetched;
            }
        }
    };
    auto stash = [&](int step) {
#pragma unroll
        for (int b = 0; b < kLoadItems; ++b) {
            const int item = tid + b * kThreads;
            if (item >= kStepRows * kGroups) continue;
            const int r = item / kGroups, gx = (item - r * kGroups) * 4;
            float v[4 * C];
            if constexpr (!kRaw) {
#pragma unroll
                for (int i = 0; i < 4 * C; ++i) v[i] = early[b][i];
            } else if (how[b] == kFetched) {
#pragma unroll
                for (int c = 0; c < C; ++c) unpack(raw[b][c], v + 4 * c);
            } else {
                resolve(step, b, v);
            }
#pragma unroll
            for (int c = 0; c < C; ++c)
                *reinterpret_cast<float4*>(in + (c * kStepRows + r) * kInW + gx) =
                    make_float4(v[c], v[C + c], v[2 * C + c], v[3 * C + c]);
        }
    };
    // kRowOutputs neighbouring outputs of one plane per item (loadWindow, filterWindow).
    auto rowPass = [&](int step) {
        constexpr int kItemsPerRow = kPixels / kRowOutputs, kSpan = (kPad + R + kRowOutputs + 3) / 4 * 4;
        const int rel0 = firstRow(step), items = rowCount(step) * C * kItemsPerRow;
#pragma unroll 1
        for (int item = tid; item < items; item += kThreads) {
            const int planeRow = item / kItemsPerRow, gx = (item - planeRow * kItemsPerRow) * kRowOutputs;
            const int r = planeRow / C, c = planeRow - r * C;
            float v[kSpan];
            loadWindow(in + (c * kStepRows + r) * kInW + gx, v);
            float acc[kRowOutputs];
            filterWindow<R, kPad - R>(v, c_rowWeights, acc);
            storeWindow(ring + ((rel0 + r) & (kRingRows - 1)) * kRingW + c * kPlane + gx, acc);
        }
    };
    // Each thread: one lane, kStripRowsPerThread consecutive output rows.
    // Its window crosses the ring's end at most once and only between chunks
    // of kStripRowsPerThread rows (`first` is a multiple of it): one address
    // per chunk, fixed offsets within it, no wrap arithmetic per load.
    static_assert(kStepRows % kStripRowsPerThread == 0 && kRingRows % kStripRowsPerThread == 0,
                  "a thread's window must wrap only between chunks");
    constexpr int kChunks = (kStripRowsPerThread + 2 * R + kStripRowsPerThread - 1) / kStripRowsPerThread;
    const int lane = tid % kLanes, pixel = lane / C, channel = lane - pixel * C;
    auto columnPass = [&](int step) {
        const int first = (step - 1) * kStepRows + (tid / kLanes) * kStripRowsPerThread;  // ring row of its first tap
        const float* chunk[kChunks];
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
            chunk[c] = ring + ((first + c * kStripRowsPerThread) & (kRingRows - 1)) * kRingW + channel * kPlane + pixel;
        float acc[kStripRowsPerThread];
#pragma unroll
        for (int j = 0; j < kStripRowsPerThread; ++j) acc[j] = 0.0f;
#pragma unroll
        for (int i = 0; i < kStripRowsPerThread + 2 * R; ++i) {
            const float v = chunk[i / kStripRowsPerThread][(i % kStripRowsPerThread) * kRingW];
#pragma unroll
            for (int j = 0; j < kStripRowsPerThread; ++j) {
                const int ky = i - j;
                if (ky >= 0 && ky <= 2 * R) acc[j] = fmaf(c_columnWeights[ky], v, acc[j]);
            }
        }
        const int x = x0 + pixel;
        const int y = yStart + first;  // centre tap: input row yIn0 + first + R
        if (x < g.width) storeColumn<T>(g, m, x * C + channel, y, yEnd - y, acc);  // element index
    };

    fetch(0);
    for (int step = 0; step < steps; ++step) {
        stash(step);
        __syncthreads();  // `in` holds this step's rows; the last column pass is done with the ring
        if (step + 1 < steps) fetch(step + 1);  // in flight while this step is filtered
        rowPass(step);
        __syncthreads();  // ring complete; `in` free for the next stash
        if (step > 0) columnPass(step);
    }
}

// Long segments re-read less vertical halo ((S + 2R) / S); shorter ones
// when needed to give every multiprocessor several blocks.
int stripSegmentRows(int width, int rows, int channels) {
    const int strips = static_cast<int>(ceilDiv(width, stripPixels(channels)));
    const int wanted = 4 * deviceProps().multiProcessorCount;  // about one wave at 4 blocks per SM
    int segment = 256;
    while (segment > kStepRows && strips * static_cast<int>(ceilDiv(rows, segment)) < wanted) segment /= 2;
    return segment;
}

std::size_t separableBytes(int tileW, int tileH, int rx, int ry, int channels, int kernels) {
    const std::size_t rows = static_cast<std::size_t>(tileH + 2 * ry);
    const std::size_t inStride = static_cast<std::size_t>((tileW + 2 * rx) * channels + 3) / 4 * 4;
    // + 4 floats: the gray row pass reads whole float4s up to 3 floats past a row.
    return (rows * inStride + static_cast<std::size_t>(kernels) * rows * tileW * channels + 4) * sizeof(float);
}

// Compiled radii of the fused-tile path (square kernels); others run-time.
// Gray single kernels from 5x5 run the rolling strip, so the gray fused tile
// compiles radius 1 only, the rest with every variant (the strip reads each
// row once where the tile re-reads its halo); 3-channel tiles skip radius 2 and 3.
constexpr bool grayWideTileBuilt(int radius, int channels) {
    if (kAllVariants) return true;
    // 3-channel 5x5 and 7x7 in this mode only when asked for it (auto runs registers): not timed.
    if (channels == 3) return radius != 2 && radius != 3;
    return channels > 1 || radius == 1;
}
bool separableCompiled(int radius, int kernels, int channels) {
    return (radius == 1 || radius == 2 || radius == 3 || radius == 7 || radius == 15) &&
           (kernels == 1 || magnitudeRadiusBuilt(radius)) && grayWideTileBuilt(radius, channels);
}

// nullptr where PY rows are not built for C channels (separableRowsBuilt).
// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&separableKernel<1, 1, 1, 8, 1>), GeomMathIntKernel>);
static_assert(std::is_same_v<decltype(&stripKernel<float, 1, kStripMinRadius>), GeomMathIntKernel>);

template <int PY> KernelRef tileVariant(int channels, int radius, int kernels) {
    KernelRef kernel = nullptr;
    detail::forChannelsKernels(channels, kernels, [&](auto c, auto n) {
        constexpr int C = decltype(c)::value, K = decltype(n)::value;
        if constexpr (!separableRowsBuilt(PY, C)) {
            return;
        } else if constexpr (K > 1 && !kAllVariants) {  // magnitudes: 3x3 compiled (magnitudeRadiusBuilt)
            kernel = radius == 1 ? separableKernel<C, 1, 1, PY, K>
                                 : separableKernel<C, -1, -1, PY, K>;
        } else {
            switch (radius) {
            case 1: kernel = separableKernel<C, 1, 1, PY, K>; break;
            case 2:
                if constexpr (grayWideTileBuilt(2, C)) kernel = separableKernel<C, 2, 2, PY, K>;
                break;
            case 3:
                if constexpr (grayWideTileBuilt(3, C)) kernel = separableKernel<C, 3, 3, PY, K>;
                break;
            case 7:
                if constexpr (grayWideTileBuilt(7, C)) kernel = separableKernel<C, 7, 7, PY, K>;
                break;
            case 15:
                if constexpr (grayWideTileBuilt(15, C))
                    kernel = separableKernel<C, 15, 15, PY, K>;
                break;
            default: kernel = separableKernel<C, -1, -1, PY, K>; break;
            }
        }
    });
    return kernel;
}

// The rolling strip covers single square kernels from 5x5 to 31x31 on gray
// images of any depth and on 8-bit colour (3 or 4 channels; colour u16 and
// f32 keep the fused tile, sparing the build 56 kernels). It has one fixed
// shape per layout (stripThreads x 1, one lane of kStripRowsPerThread rows
// per thread).
bool stripApplies(const PreparedFilter& f) {
    const int radius = f.math.kw / 2;
    return (f.channels == 1 || f.inDepth == Depth::U8) && f.math.kernelCount == 1 && f.math.kw == f.math.kh &&
           radius >= kStripMinRadius && radius <= kStripMaxRadius;
}
template <class T, int C, int... Offsets>
KernelRef stripKernelFor(int radius, std::integer_sequence<int, Offsets...>) {
    KernelRef kernel = nullptr;
    ((radius == kStripMinRadius + Offsets
          ? (kernel = stripKernel<T, C, kStripMinRadius + Offsets>)
          : nullptr),
     ...);
    return kernel;
}
KernelRef stripKernelFor(Depth depth, int channels, int radius) {
    const auto radii = std::make_integer_sequence<int, kStripMaxRadius - kStripMinRadius + 1>{};
    if (channels == 3) return stripKernelFor<std::uint8_t, 3>(radius, radii);
    if (channels == 4) return stripKernelFor<std::uint8_t, 4>(radius, radii);
    switch (depth) {
    case Depth::U8: return stripKernelFor<std::uint8_t, 1>(radius, radii);
    case Depth::U16: return stripKernelFor<std::uint16_t, 1>(radius, radii);
    default: return stripKernelFor<float, 1>(radius, radii);
    }
}
LaunchConfig stripConfig(int channels) {
    return LaunchConfig{stripThreads(channels), 1, 1, kStripRowsPerThread, HaloScheme::Cooperative, RadiusPath::Compiled};
}

// The quads (separable_quads.cu): square kernels to 9x9 (gray u8 13x13, f32
// 11x11; magnitudes 7x7) on gray u8 and f32, BGR8 and RGBA8 images, adjacent
// pixels a thread.
bool quadsApply(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    const int sampleBytes = static_cast<int>(depthBytes(f.inDepth));
    const int K = m.kernelCount, radius = m.kw / 2, C = f.channels;
    return m.kw == m.kh &&
           static_cast<bool>(separableQuadVariant(f.inDepth, C, radius, K, separableQuadPixels(sampleBytes, C, K, radius),
                                                  separableQuadRows(sampleBytes, C, K, radius)));
}
bool wantsQuads(const LaunchConfig& want) {
    return want.isDefault() || ((want.perThreadX == 2 || want.perThreadX == 4 || want.perThreadX == 8) &&
                                want.halo == HaloScheme::Default && want.radius != RadiusPath::Runtime);
}

Refusal planQuads(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    const KernelMath& m = f.math;
    const int radius = m.kw / 2, K = m.kernelCount, C = f.channels;
    const int sampleBytes = static_cast<int>(depthBytes(f.inDepth));
    const int px = pickCount(want.perThreadX, separableQuadPixels(sampleBytes, C, K, radius), {2, 4, 8});
    const int py = pickCount(want.perThreadY, separableQuadRows(sampleBytes, C, K, radius), {2, 4, 8, 16});
    out.kernel = px > 0 && py > 0 ? separableQuadVariant(f.inDepth, C, radius, K, px, py) : nullptr;
    if (!out.kernel) {
        std::string built;
        for (int n : {2, 4, 8})
            for (int rowCount : {2, 4, 8, 16})
                if (separableQuadBuilt(radius, sampleBytes, C, K, n, rowCount))
                    built += (built.empty() ? "" : ", ") + std::to_string(n) + "x" + std::to_string(rowCount);
        return "the separable mode computes " + built +
               " outputs per thread (pixels x rows) in its quads for this kernel and image in this build, and 1 "
               "column in its fused tile";
    }
    out.block = pickBlock(want, dim3(32, 4));
    out.grid = gridFor(width, rows, out.block, px, py);
    out.quadSpan = C == 4   ? rgba8QuadSpan
                   : C == 3 ? bgr8QuadSpan
                   : f.inDepth == Depth::U8 ? grayU8QuadSpan
                                            : grayF32QuadSpan;
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), px, py,
                              HaloScheme::Default, RadiusPath::Compiled};
    out.variant = "separable quads, compiled radius " + std::to_string(radius) + ", " + std::to_string(px) + "x" +
                  std::to_string(py) + " outputs per thread (" + std::to_string(px) + " adjacent " +
                  (C == 4 ? "RGBA8" : C == 3 ? "BGR8" : sampleBytes == 1 ? "u8" : "f32") +
                  " pixels, each input row filtered in registers; edge pixels in extra leading blocks)";
    return checkPlan(out);
}

Refusal planSeparable(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (!f.separable)
        return {RefusalReason::FilterUnsupported, "the kernel is not separable (not rank 1); use shared or auto"};
    const KernelMath& m = f.math;
    const int rx = m.kw / 2, ry = m.kh / 2, C = f.channels, K = m.kernelCount;
    if (quadsApply(f) && wantsQuads(want)) return planQuads(f, want, width, rows, out);
    if (stripApplies(f) && (want.isDefault() || want == stripConfig(C))) {
        out.kernel = stripKernelFor(f.inDepth, C, rx);
        out.block = dim3(stripThreads(C), 1);
        const int segment = stripSegmentRows(width, rows, C);
        out.grid = dim3(ceilDiv(width, stripPixels(C)), ceilDiv(rows, segment));
        out.sharedBytes = stripBytes(rx, C);
        out.config = stripConfig(C);
        out.variant = "separable rolling strip, compiled radius " + std::to_string(rx) + ", " +
                      std::to_string(stripPixels(C)) + "-pixel strips of " + std::to_string(segment) + " rows";
        return checkPlan(out);
    }
    const bool compilable = rx == ry && separableCompiled(rx, K, C);
    if (want.radius == RadiusPath::Compiled && !compilable)
        return K > 1 && !kAllVariants ? "the separable mode compiles magnitudes of radius 1; this one needs the "
                                        "run-time radius"
               : C == 1 && !kAllVariants
                   ? "the separable mode's gray fused tile compiles radius 1 (5x5 to 31x31 run the rolling "
                     "strip); this one needs the run-time radius"
               : C == 3 && !kAllVariants
                   ? "the separable mode compiles radius 1, 7 and 15 for 3-channel images; this one needs the "
                     "run-time radius"
                   : "the separable mode compiles square kernels of radius 1, 2, 3, 7 and 15; this one needs the "
                     "run-time radius";
    const bool compiled = compilable && want.radius != RadiusPath::Runtime;
    if (want.perThreadX > 1)
        return quadsApply(f) ? "the separable mode computes 2, 4 or 8 columns per thread in its quads, 1 column in "
                               "its fused tile"
                             : "the separable mode computes 1 column per thread here (its row pass spreads the tile "
                               "over all threads; 4 or 8 for one kernel to 9x9 (gray u8 13x13, f32 11x11) or a "
                               "magnitude to 7x7 on gray u8 and f32, 4 on BGR8, 2 or 4 on RGBA8)";
    // Colour tiles: 4 rows, gray: 8, the autotuner's fastest at 8K (8 rows of
    // 4-channel sums were much slower; docs/performance.md).
    const int py = pickCount(want.perThreadY, C == 1 ? 8 : 4, {2, 4, 8});
    if (py < 0) return "the separable mode computes 2, 4 or 8 rows per thread";
    if (!separableRowsBuilt(py, C))
        return std::string("the separable mode's fused tile computes ") + (C == 1 ? "8" : "4") +
               " rows per thread for " + (C == 1 ? "gray" : "colour") +
               " images in this build (-DFS_CUDA_ALL_VARIANTS=ON builds 2, 4 and 8)";
    const HaloScheme halo = want.halo == HaloScheme::Default ? HaloScheme::Cooperative : want.halo;
    if (want.blockX > 0 && want.blockY > 0) {
        out.block = pickBlock(want, dim3(32, 8));
        if (C == 1 && compiled && out.block.x % 4 != 0)
            return "the gray row pass filters 4 pixels per thread: the block width must be a multiple of 4";
    } else {
        const TileShape shape = chooseTileShape(width, rows, rx, ry, C, K, 1, py, separableBytes);
        if (!shape.ok) return "the tile with its halo for this kernel size does not fit in shared memory";
        out.block = shape.block;
    }
    const int radius = compiled ? rx : -1;
    out.kernel = py == 2 ? tileVariant<2>(C, radius, K) : py == 4 ? tileVariant<4>(C, radius, K) : tileVariant<8>(C, radius, K);
    out.grid = gridFor(width, rows, out.block, 1, py);
    out.sharedBytes = separableBytes(static_cast<int>(out.block.x), static_cast<int>(out.block.y) * py, rx, ry, C, K);
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), 1, py, halo,
                              compiled ? RadiusPath::Compiled : RadiusPath::Runtime};
    out.variant = std::string("separable fused tile, ") +
                  (compiled ? "compiled radius " + std::to_string(rx) : std::string("run-time radius")) + ", " +
                  haloSchemeName(halo) + " halo, 1x" + std::to_string(py) + " outputs per thread";
    return checkPlan(out);
}

Refusal supportsSeparable(const PreparedFilter& f) { return supportedIfPlans(planSeparable, f); }

std::vector<LaunchConfig> separableCandidates() {
    if constexpr (kAllVariants)
        return candidateGrid({{1, 2}, {1, 4}, {1, 8}, {2, 2}, {2, 4}, {2, 8}, {4, 2}, {4, 4}, {4, 8}, {4, 16}, {8, 4},
                              {8, 8}});
    // 2 x 4, 4 x 4, 4 x 8 and 8 x 4: the quads' default shapes.
    return candidateGrid({{1, 4}, {1, 8}, {2, 4}, {4, 4}, {4, 8}, {8, 4}});
}

cudaError_t prepareSeparable(const PreparedFilter& f, cudaStream_t stream) {
    float rows[kMaxKernels * kMaxKernelSize] = {};
    float columns[kMaxKernels * kMaxKernelSize] = {};
    for (int k = 0; k < f.math.kernelCount; ++k) {
        for (int i = 0; i < f.math.kw; ++i) rows[k * kMaxKernelSize + i] = f.sepRow[k * f.math.kw + i];
        for (int i = 0; i < f.math.kh; ++i) columns[k * kMaxKernelSize + i] = f.sepCol[k * f.math.kh + i];
    }
    // The copies read the host arrays when they run; synchronise before they go out of scope.
    cudaError_t err = cudaMemcpyToSymbolAsync(c_rowWeights, rows, sizeof rows, 0, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(c_columnWeights, columns, sizeof columns, 0, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = uploadSeparableQuadWeights(rows, columns, stream);
    const cudaError_t syncErr = cudaStreamSynchronize(stream);
    return err != cudaSuccess ? err : syncErr;
}

cudaError_t launchSeparable(const LaunchArgs& a, cudaStream_t stream) {
    LaunchPlan plan;
    if (!planSeparable(*a.filter, a.config, a.geom.width, a.geom.outRows, plan).ok())
        return cudaErrorInvalidConfiguration;
    if (plan.quadSpan) return launchQuadPlan(plan, a.geom, a.filter->math, stream);
    if (plan.config == stripConfig(a.filter->channels) && stripApplies(*a.filter))
        return launchPlanned<GeomMathIntKernel>(plan, stream, a.geom, a.filter->math,
                             stripSegmentRows(a.geom.width, a.geom.outRows, a.filter->channels));
    return launchPlanned<GeomMathIntKernel>(plan, stream, a.geom, a.filter->math, plan.config.halo == HaloScheme::PerThread ? 1 : 0);
}

}  // namespace

bool separableRunsStrip(const PreparedFilter& f) { return f.separable && stripApplies(f) && !quadsApply(f); }
bool separableRunsQuads(const PreparedFilter& f) { return f.separable && quadsApply(f); }

const ModeImpl& separableMode() {
    static const ModeImpl mode{"separable",
                               "Rank-1 kernels as a row pass and a column pass, the intermediate never in device "
                               "memory: kw + kh multiply-adds per pixel instead of kw * kh. Gray u8 and f32, BGR8 and "
                               "RGBA8 kernels to 9x9 (gray u8 to 13x13, f32 to 11x11; magnitudes to 7x7) run in "
                               "registers, 2 to 8 adjacent pixels a thread, each input row filtered once; larger "
                               "square kernels on gray and 8-bit colour walk a rolling window down column strips "
                               "through shared memory, each input row read once; the rest run a tile through shared "
                               "memory.",
                               supportsSeparable, prepareSeparable, planSeparable, launchSeparable, separableCandidates};
    return mode;
}

}  // namespace fs::gpu
