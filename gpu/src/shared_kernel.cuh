#pragma once
// The shared-memory kernel, compiled per (channels, radius, rows per thread,
// kernel count); the depth is read at run time (it only changes the tile load
// and the store). The variants are spread over shared_rows*.cu so they
// compile in parallel; mode_shared.cu plans and launches them.
#include "constant_weights.cuh"
#include "device_common.cuh"
#include "kernel_variants.hpp"

namespace fs::gpu {

constexpr int kSharedMaxRadius = 15;  // the largest radius that can be compiled; which are: sharedRadiusBuilt

inline std::size_t sharedTileBytes(int tileW, int tileH, int rx, int ry, int channels, int kernels) {
    const std::size_t taps = static_cast<std::size_t>(2 * rx + 1) * (2 * ry + 1);
    return (static_cast<std::size_t>(tileW + 2 * rx) * (tileH + 2 * ry) * channels + kernels * taps) * sizeof(float);
}

// Each block copies its tile plus halo into shared memory once, then every
// thread computes perThreadX columns (strided by the block width) of PY
// outputs, sliding down the window so each loaded value feeds up to PY
// outputs. R >= 0: compiled radius (loops unrolled, weights become operands
// while the unrolled body stays small); R < 0: run-time radius.
template <int C, int R, int PY, int K>
__global__ void __launch_bounds__(512) sharedKernel(KernelGeom g, KernelMath m, int perThreadX, int perThreadHalo) {
    extern __shared__ float4 sharedRaw[];
    float* s = reinterpret_cast<float*>(sharedRaw);
    const int rx = R >= 0 ? R : m.kw / 2;
    const int ry = R >= 0 ? R : m.kh / 2;
    const int kw = 2 * rx + 1, kh = 2 * ry + 1, taps = kw * kh;
    const int tileW = blockDim.x * perThreadX, tileH = blockDim.y * PY;
    const int winW = tileW + 2 * rx;
    const int stride = winW * C;
    const int x0 = blockIdx.x * tileW;
    const int yTile = g.outRow0 + blockIdx.y * tileH;
    loadTileAnyDepth<C>(perThreadHalo != 0, s, stride, g, m, x0 - rx, yTile - ry, winW, windowRows(g, yTile, tileH, ry));
    // Run-time radius: the taps' weights go to shared memory too. Read from
    // constant memory at run-time indices, large kernels (31 x 31 = 3.8 KB)
    // overflow the constant cache and serialise the warp on misses.
    float* sharedWeights = s + (tileH + 2 * ry) * stride;
    if constexpr (R < 0) {
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < K * taps; i += blockDim.x * blockDim.y)
            sharedWeights[i] = c_weights[i];
    }
    __syncthreads();

    // Full unrolling while the body stays small; big compiled kernels unroll
    // the taps of a row only, reading each weight at a run-time index. 4624
    // FMAs unrolls the colour radii to 17x17, which run faster unrolled than
    // with the weights at run-time indices (docs/performance.md).
    constexpr int kBody = (2 * R + 1) * (2 * R + 1) * PY * C * K;
    constexpr int kRowUnroll = R < 0 ? 4 : kBody <= 4624 ? PY + 2 * R : 1;
    const int firstRow = threadIdx.y * PY;
#pragma unroll 1
    for (int px = 0; px < perThreadX; ++px) {
        const int tx = threadIdx.x + px * blockDim.x;
        Px<C> acc[K][PY];
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int j = 0; j < PY; ++j) acc[k][j] = splat<C>(0.0f);

        // Window row i feeds output j through kernel row ky = i - j: each
        // output still sums its taps in row-major order, like the CPU reference.
#pragma unroll kRowUnroll
        for (int i = 0; i < PY + kh - 1; ++i) {
            const float* srow = s + (firstRow + i) * stride + tx * C;
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) {
                const Px<C> v = loadShared<C>(srow + kx * C);
#pragma unroll
                for (int j = 0; j < PY; ++j) {
                    const int ky = i - j;
                    if (ky < 0 || ky >= kh) continue;
#pragma unroll
                    for (int k = 0; k < K; ++k) {
                        const int tap = k * taps + ky * kw + kx;
                        madd(acc[k][j], R < 0 ? sharedWeights[tap] : c_weights[tap], v);
                    }
                }
            }
        }
        const int x = x0 + tx;
        if (x >= g.width) break;
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            const int y = yTile + firstRow + j;
            if (y < g.outRow0 + g.outRows) storePixelAnyDepth<C>(g, m, x, y, acc[0][j], acc[K - 1][j]);
        }
    }
}

// The gray variant (shared_quad.cu): 4 adjacent columns x 4 rows a thread
// (8 rows measured slower from 7x7 to 21x21, and spill at the largest radii).
constexpr int kSharedQuadRows = 4;
// A thread reads 2R + 4 window values a row as float4s; each window row is
// padded so the last thread's reads stay inside it.
constexpr int sharedQuadWindow(int radius) { return (2 * radius + 4 + 3) / 4 * 4; }
constexpr int sharedQuadStride(int tileW, int radius) { return tileW + sharedQuadWindow(radius) - 4; }
inline std::size_t sharedQuadTileBytes(int tileW, int tileH, int rx, int ry, int, int) {
    const std::size_t weights = static_cast<std::size_t>(2 * ry + 1) * ((2 * rx + 1 + 3) / 4 * 4);
    return (static_cast<std::size_t>(sharedQuadStride(tileW, rx)) * (tileH + 2 * ry) + weights) * sizeof(float);
}
// nullptr for a radius not built (sharedQuadRadiusBuilt).
KernelRef sharedQuadKernelFor(int radius);
cudaError_t uploadSharedQuadWeights(const PreparedFilter& f, cudaStream_t stream);

// The variant for (channels, radius, kernels) with PY rows per thread;
// radius -1 is the run-time path; nullptr for a radius not built
// (sharedRadiusBuilt). Defined in shared_rows<PY>.cu.
// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&sharedKernel<1, 1, 4, 1>), GeomMathIntIntKernel>);
template <int PY> KernelRef sharedKernelFor(int channels, int radius, int kernels);
// Each file has its own __constant__ weights (no relocatable device code), so
// each fills its own copy.
template <int PY> cudaError_t uploadSharedWeights(const PreparedFilter& f, cudaStream_t stream);

// Instantiates sharedKernelFor<PY> (one line in each shared_rows*.cu).
#define FS_SHARED_ROWS(PY)                                                                                      \
    template <> KernelRef sharedKernelFor<PY>(int channels, int radius, int kernels) {                         \
        KernelRef k = nullptr;                                                                                 \
        auto pick = [&](auto c, auto n) {                                                                        \
            constexpr int C = decltype(c)::value, K = decltype(n)::value;                                        \
            fs::gpu::detail::forRadius<kSharedMaxRadius>(radius, [&](auto r) {                                   \
                constexpr int R = decltype(r)::value;                                                            \
                if constexpr (R < 0 ? sharedRuntimeBuilt(PY) : sharedRadiusBuilt(PY, R, K, C))                                             \
                    k = sharedKernel<C, R, PY, K>;                                \
            });                                                                                                  \
        };                                                                                                       \
        fs::gpu::detail::forChannelsKernels(channels, kernels, pick);                                            \
        return k;                                                                                                \
    }                                                                                                            \
    template <> cudaError_t uploadSharedWeights<PY>(const PreparedFilter& f, cudaStream_t stream) {              \
        return uploadConstantWeights(f, stream);                                                                 \
    }


}  // namespace fs::gpu
