// Mode "separable": rank-1 kernels (Gaussian, box, Sobel components) as a row
// pass then a column pass, kw + kh multiply-adds per pixel instead of kw * kh;
// the intermediate never reaches device memory. Two paths:
// - rolling strip (gray, one kernel, 15x15 and 31x31): each block walks down a
//   128-column strip, row-filters each input row once into a ring of the last
//   rows' results in shared memory and column-filters from that ring, so every
//   input row is read once per segment instead of once per tile plus halo; the
//   next rows' loads are in flight while the current ones are filtered.
// - fused tile (everything else): the block loads its tile with halo into
//   shared memory, filters its rows into a second buffer, then its columns.
#include "device_common.cuh"

namespace fs::gpu {
namespace {

__constant__ float c_rowWeights[kMaxKernels * kMaxKernelSize];
__constant__ float c_columnWeights[kMaxKernels * kMaxKernelSize];

template <class T, int C, int RX, int RY, int PY, int K>
__global__ void __launch_bounds__(512) separableKernel(KernelGeom g, KernelMath m) {
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
    loadTile<T, C>(in, inStride, g, x0 - rx, yTile - ry, winW, windowRows(g, yTile, tileH, ry));
    __syncthreads();

    const int tx = threadIdx.x;
    const int rows = windowRows(g, yTile, tileH, ry);
    if constexpr (C == 1 && RX >= 0) {
        // Gray, fixed radius: each thread filters 4 neighbouring pixels of a
        // row from one register window read as float4s, a quarter of the
        // shared-memory traffic of one pixel per thread.
        constexpr int kSpan = (4 + 2 * RX + 3) / 4 * 4;
        const int tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
        const int groups = tileW / 4;
        for (int item = tid; item < rows * groups; item += threads) {
            const int r = item / groups, gx = (item - r * groups) * 4;
            const float* srow = in + r * inStride + gx;
            float v[kSpan];
#pragma unroll
            for (int i = 0; i < kSpan; i += 4) {
                const float4 q = *reinterpret_cast<const float4*>(srow + i);
                v[i] = q.x, v[i + 1] = q.y, v[i + 2] = q.z, v[i + 3] = q.w;
            }
#pragma unroll
            for (int k = 0; k < K; ++k) {
                float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
                for (int kx = 0; kx < 2 * RX + 1; ++kx)
#pragma unroll
                    for (int o = 0; o < 4; ++o) acc[o] = fmaf(c_rowWeights[k * kMaxKernelSize + kx], v[o + kx], acc[o]);
                *reinterpret_cast<float4*>(mid + (k * winH + r) * midStride + gx) = make_float4(acc[0], acc[1], acc[2], acc[3]);
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
        if (y < g.outRow0 + g.outRows) storePixel<T, C>(g, m, x, y, acc[0][j], acc[K - 1][j]);
    }
}

// ---- Rolling strip path ----------------------------------------------------
constexpr int kStripW = 128;       // output columns per block
constexpr int kStripThreads = 256;
constexpr int kStepRows = 32;      // input rows loaded and row-filtered per step
constexpr int kRingRows = 64;      // row-pass results kept: >= kStepRows + 2R, a power of two
constexpr int kStripRowsPerThread = kStepRows * kStripW / kStripThreads;  // column-pass outputs per thread

template <int R> constexpr int stripPad() { return (R + 3) / 4 * 4; }  // halo rounded to float4
template <int R> constexpr int stripInW() { return kStripW + 2 * stripPad<R>(); }
template <int R> constexpr std::size_t stripBytes() {
    return static_cast<std::size_t>(kStepRows * stripInW<R>() + kRingRows * kStripW) * sizeof(float);
}

template <class T, int R>
__global__ void __launch_bounds__(kStripThreads, 3) stripKernel(KernelGeom g, KernelMath m, int segmentRows) {
    static_assert(2 * R <= kStepRows && kStepRows + 2 * R <= kRingRows, "ring too small for this radius");
    constexpr int kPad = stripPad<R>(), kInW = stripInW<R>(), kGroups = kInW / 4;
    constexpr int kLoadItems = (kStepRows * kGroups + kStripThreads - 1) / kStripThreads;
    extern __shared__ float4 sharedRaw[];
    float* in = reinterpret_cast<float*>(sharedRaw);  // kStepRows x kInW: pixels x0 - kPad ...
    float* ring = in + kStepRows * kInW;              // kRingRows x kStripW row-pass results
    const int tid = threadIdx.x;
    const int x0 = blockIdx.x * kStripW;
    const int yStart = g.outRow0 + blockIdx.y * segmentRows;
    const int yEnd = min(yStart + segmentRows, g.outRow0 + g.outRows);
    const int yIn0 = yStart - R;              // input row of ring row 0
    const int inRows = yEnd - yStart + 2 * R;  // never past the last output row + halo (all a strip holds)
    const int steps = 1 + (yEnd - yStart + kStepRows - 1) / kStepRows;
    // Step 0 loads the first 2R input rows; step s >= 1 the next kStepRows and
    // then writes output rows yStart + (s - 1) * kStepRows ...
    auto firstRow = [](int step) { return step == 0 ? 0 : 2 * R + (step - 1) * kStepRows; };
    auto rowCount = [](int step) { return step == 0 ? 2 * R : kStepRows; };

    float pre[kLoadItems][4];
    auto fetch = [&](int step) {
        const int rel0 = firstRow(step), count = rowCount(step);
#pragma unroll
        for (int b = 0; b < kLoadItems; ++b) {
            const int item = tid + b * kStripThreads;
            const int r = item / kGroups, x = x0 - kPad + (item - r * kGroups) * 4;
#pragma unroll
            for (int o = 0; o < 4; ++o) pre[b][o] = 0.0f;
            if (item >= kStepRows * kGroups || r >= count || rel0 + r >= inRows) continue;
            const int iy = borderIndex(yIn0 + rel0 + r, g.imageHeight, g.border);
            if (iy < 0) {
#pragma unroll
                for (int o = 0; o < 4; ++o) pre[b][o] = g.borderValue;
                continue;
            }
            const T* row = reinterpret_cast<const T*>(sourceRow(g, iy));
            if (x >= 0 && x + 4 <= g.width && reinterpret_cast<std::uintptr_t>(row + x) % (4 * sizeof(T)) == 0) {
                const Px<4> v = loadChannels<T, 4, true>(row + x);  // 4 gray pixels as one vector load
#pragma unroll
                for (int o = 0; o < 4; ++o) pre[b][o] = v.c[o];
            } else {
#pragma unroll
                for (int o = 0; o < 4; ++o) {
                    const int ix = borderIndex(x + o, g.width, g.border);
                    pre[b][o] = ix < 0 ? g.borderValue : static_cast<float>(__ldg(row + ix));
                }
            }
        }
    };
    auto stash = [&] {
#pragma unroll
        for (int b = 0; b < kLoadItems; ++b) {
            const int item = tid + b * kStripThreads;
            if (item < kStepRows * kGroups)
                reinterpret_cast<float4*>(in)[item] = make_float4(pre[b][0], pre[b][1], pre[b][2], pre[b][3]);
        }
    };
    // 4 neighbouring outputs per item from one register window read as float4s.
    auto rowPass = [&](int step) {
        constexpr int kSpan = (kPad + R + 4 + 3) / 4 * 4;
        const int rel0 = firstRow(step), items = rowCount(step) * (kStripW / 4);
#pragma unroll 1
        for (int item = tid; item < items; item += kStripThreads) {
            const int r = item / (kStripW / 4), gx = (item - r * (kStripW / 4)) * 4;
            const float* s = in + r * kInW + gx;
            float v[kSpan];
#pragma unroll
            for (int i = 0; i < kSpan; i += 4) {
                const float4 q = *reinterpret_cast<const float4*>(s + i);
                v[i] = q.x, v[i + 1] = q.y, v[i + 2] = q.z, v[i + 3] = q.w;
            }
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int k = 0; k <= 2 * R; ++k)
#pragma unroll
                for (int o = 0; o < 4; ++o) acc[o] = fmaf(c_rowWeights[k], v[o + kPad - R + k], acc[o]);
            *reinterpret_cast<float4*>(ring + ((rel0 + r) & (kRingRows - 1)) * kStripW + gx) =
                make_float4(acc[0], acc[1], acc[2], acc[3]);
        }
    };
    // Each thread: one column, kStripRowsPerThread consecutive output rows.
    auto columnPass = [&](int step) {
        const int col = tid % kStripW;
        const int first = (step - 1) * kStepRows + (tid / kStripW) * kStripRowsPerThread;  // ring row of its first tap
        float acc[kStripRowsPerThread];
#pragma unroll
        for (int j = 0; j < kStripRowsPerThread; ++j) acc[j] = 0.0f;
#pragma unroll
        for (int i = 0; i < kStripRowsPerThread + 2 * R; ++i) {
            const float v = ring[((first + i) & (kRingRows - 1)) * kStripW + col];
#pragma unroll
            for (int j = 0; j < kStripRowsPerThread; ++j) {
                const int ky = i - j;
                if (ky >= 0 && ky <= 2 * R) acc[j] = fmaf(c_columnWeights[ky], v, acc[j]);
            }
        }
        const int x = x0 + col;
        if (x >= g.width) return;
#pragma unroll
        for (int j = 0; j < kStripRowsPerThread; ++j) {
            const int y = yStart + first + j;  // centre tap: input row yIn0 + first + j + R
            if (y < yEnd) {
                Px<1> p;
                p.c[0] = acc[j];
                storePixel<T, 1>(g, m, x, y, p, p);
            }
        }
    };

    fetch(0);
    for (int step = 0; step < steps; ++step) {
        stash();
        __syncthreads();  // `in` holds this step's rows; the last column pass is done with the ring
        if (step + 1 < steps) fetch(step + 1);  // in flight while this step is filtered
        rowPass(step);
        __syncthreads();  // ring complete; `in` free for the next stash
        if (step > 0) columnPass(step);
    }
}

template <class T, int R> cudaError_t launchStrip(const LaunchArgs& a, cudaStream_t stream) {
    const KernelGeom& g = a.geom;
    auto kernel = stripKernel<T, R>;
    constexpr std::size_t bytes = stripBytes<R>();
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (err != cudaSuccess) return err;
    // Long segments re-read less vertical halo ((S + 2R) / S); shorter ones
    // when needed to give every multiprocessor several blocks.
    const int strips = static_cast<int>(ceilDiv(g.width, kStripW));
    const int wanted = 4 * deviceProps().multiProcessorCount;  // about one wave at 4 blocks per SM
    int segment = 256;
    while (segment > kStepRows && strips * static_cast<int>(ceilDiv(g.outRows, segment)) < wanted) segment /= 2;
    const dim3 grid(static_cast<unsigned>(strips), ceilDiv(g.outRows, segment));
    kernel<<<grid, kStripThreads, bytes, stream>>>(g, a.filter->math, segment);
    return cudaGetLastError();
}

std::size_t separableBytes(int tileW, int tileH, int rx, int ry, int channels, int kernels) {
    const std::size_t rows = static_cast<std::size_t>(tileH + 2 * ry);
    const std::size_t inStride = static_cast<std::size_t>((tileW + 2 * rx) * channels + 3) / 4 * 4;
    // + 4 floats: the gray row pass reads whole float4s up to 3 floats past a row.
    return (rows * inStride + static_cast<std::size_t>(kernels) * rows * tileW * channels + 4) * sizeof(float);
}

template <class T, int C, int RX, int RY, int PY, int K> cudaError_t launchTiled(const LaunchArgs& a, cudaStream_t stream) {
    const KernelMath& m = a.filter->math;
    const TileShape shape = chooseTileShape(a.geom.width, a.geom.outRows, m.kw / 2, m.kh / 2, C, K, PY, separableBytes);
    if (!shape.ok) return cudaErrorInvalidConfiguration;
    auto kernel = separableKernel<T, C, RX, RY, PY, K>;
    cudaError_t err =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shape.sharedBytes));
    if (err != cudaSuccess) return err;
    kernel<<<shape.grid, shape.block, shape.sharedBytes, stream>>>(a.geom, m);
    return cudaGetLastError();
}

template <class T, int C, int K> cudaError_t launchForRadius(const LaunchArgs& a, cudaStream_t stream) {
    const KernelMath& m = a.filter->math;
    if (m.kw == m.kh) {
        switch (m.kw) {
        case 3: return launchTiled<T, C, 1, 1, (C * K <= 4 ? 8 : 4), K>(a, stream);
        case 5: return launchTiled<T, C, 2, 2, 8, K>(a, stream);
        case 7: return launchTiled<T, C, 3, 3, 8, K>(a, stream);
        case 15: return launchTiled<T, C, 7, 7, 8, K>(a, stream);
        case 31: return launchTiled<T, C, 15, 15, 8, K>(a, stream);
        default: break;
        }
    }
    return launchTiled<T, C, -1, -1, 8, K>(a, stream);
}

std::string supportsSeparable(const PreparedFilter& f) {
    if (!f.separable) return "the kernel is not separable (not rank 1); use shared or auto";
    const TileShape shape = chooseTileShape(64, 64, f.math.kw / 2, f.math.kh / 2, f.channels, f.math.kernelCount, 8,
                                            separableBytes);
    if (!shape.ok) return "the tile with its halo for this kernel size does not fit in shared memory";
    return {};
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
    const cudaError_t syncErr = cudaStreamSynchronize(stream);
    return err != cudaSuccess ? err : syncErr;
}

cudaError_t launchSeparable(const LaunchArgs& a, cudaStream_t stream) {
    cudaError_t err = cudaSuccess;
    dispatchPixel(a.filter->inDepth, a.filter->channels, [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        const KernelMath& m = a.filter->math;
        if constexpr (C == 1) {
            if (m.kernelCount == 1 && m.kw == m.kh && (m.kw == 15 || m.kw == 31)) {
                err = m.kw == 15 ? launchStrip<T, 7>(a, stream) : launchStrip<T, 15>(a, stream);
                return;
            }
        }
        err = m.kernelCount > 1 ? launchForRadius<T, C, 2>(a, stream) : launchForRadius<T, C, 1>(a, stream);
    });
    return err;
}

}  // namespace

const ModeImpl& separableMode() {
    static const ModeImpl mode{"separable",
                               "Rank-1 kernels as a row pass and a column pass fused in one launch through shared "
                               "memory: kw + kh multiply-adds per pixel instead of kw * kh (gray 15x15 and 31x31: a "
                               "rolling window down column strips, each input row read once).",
                               supportsSeparable, prepareSeparable, launchSeparable};
    return mode;
}

}  // namespace fs::gpu
