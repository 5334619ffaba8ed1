// Mode "separable": rank-1 kernels (Gaussian, box, Sobel components) as a row
// pass then a column pass, fused in one launch: the block loads its tile with
// halo into shared memory, filters its rows into a second shared buffer, then
// filters that buffer's columns. The intermediate never reaches device memory,
// and each pixel costs kw + kh multiply-adds instead of kw * kh.
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
        err = a.filter->math.kernelCount > 1 ? launchForRadius<T, C, 2>(a, stream) : launchForRadius<T, C, 1>(a, stream);
    });
    return err;
}

}  // namespace

const ModeImpl& separableMode() {
    static const ModeImpl mode{"separable",
                               "Rank-1 kernels as a row pass and a column pass fused in one launch through shared "
                               "memory: kw + kh multiply-adds per pixel instead of kw * kh.",
                               supportsSeparable, prepareSeparable, launchSeparable};
    return mode;
}

}  // namespace fs::gpu
