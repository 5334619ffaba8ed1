// The separable mode's quads: square rank-1 kernels (one, or the two of a
// magnitude) on gray u8 and f32, BGR8 and RGBA8 images, with no shared
// memory and no barrier. Each thread computes N adjacent pixels x PY rows
// (gray: N = 4, or 8 on u8; BGR8: 4; RGBA8: 2 or 4): it loads each of its PY
// + 2R input rows once (the N pixels and their neighbours as vectors or
// words, as the registers mode's quads do), filters the row in registers
// into N values per kernel and channel, and adds those to the PY output rows
// they feed: per output kw x (1 + 2R / PY) row multiply-adds and kw column
// ones, against kw x kw in the registers mode, and no ring in shared memory
// with its barriers as in the rolling strip. The outputs outside the quads'
// span run in leading rows of blocks of the same launch (quad_rows.cuh),
// with the same arithmetic in the same order, so the frame and the quads
// agree bit for bit.
#include "quad_rows.cuh"
#include "kernel_variants.hpp"
#include "separable_quads.hpp"

namespace fs::gpu {
namespace {

__constant__ float c_quadRowWeights[kMaxKernels * kMaxKernelSize];
__constant__ float c_quadColumnWeights[kMaxKernels * kMaxKernelSize];

// The quads' arithmetic for one frame output: each kernel row's taps summed
// in order, then the rows weighted in order, every tap through
// fs::borderIndex as loadPixel resolves it. The tap columns are resolved once,
// not per tap: resolving each tap made the frame, 0.5 % of an 8K image's
// outputs (2 % of 1080p), cost several percent of the launch.
template <class T, int C, int R, int K>
__device__ __forceinline__ void separableFramePixel(const KernelGeom& g, const KernelMath& m, int x, int y) {
    constexpr int kw = 2 * R + 1;
    int column[kw];  // -1: outside a constant border
#pragma unroll
    for (int kx = 0; kx < kw; ++kx) column[kx] = borderIndex(x + kx - R, g.width, g.border);
    Px<C> acc[K];
#pragma unroll
    for (int k = 0; k < K; ++k) acc[k] = splat<C>(0.0f);
#pragma unroll 1
    for (int ky = 0; ky < kw; ++ky) {
        const int iy = borderIndex(y + ky - R, g.imageHeight, g.border);
        const T* row = reinterpret_cast<const T*>(sourceRow(g, iy < 0 ? 0 : iy));
        Px<C> h[K];
#pragma unroll
        for (int k = 0; k < K; ++k) h[k] = splat<C>(0.0f);
#pragma unroll
        for (int kx = 0; kx < kw; ++kx) {
            const Px<C> v =
                (iy | column[kx]) < 0 ? splat<C>(g.borderValue) : loadChannels<T, C, true>(row + column[kx] * C);
#pragma unroll
            for (int k = 0; k < K; ++k) madd(h[k], c_quadRowWeights[k * kMaxKernelSize + kx], v);
        }
#pragma unroll
        for (int k = 0; k < K; ++k) madd(acc[k], c_quadColumnWeights[k * kMaxKernelSize + ky], h[k]);
    }
    storePixel<T, C>(g, m, x, y, acc[0], acc[K - 1]);
}

template <class T, int C, int N, int R, int PY, int K>
__global__ void __launch_bounds__(256) separableQuadKernel(KernelGeom g, KernelMath m, int frameBlockRows) {
    constexpr int kw = 2 * R + 1;
    const QuadSpan span = layoutQuadSpan<T, C>(g, m, N, R, PY);
    if (quadFrameBlock<PY>(g, quadFrame(g, N, PY, span), frameBlockRows,
                           [&](int x, int y) { separableFramePixel<T, C, R, K>(g, m, x, y); }))
        return;
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
#pragma unroll
        for (int k = 0; k < K; ++k) {
            Px<C> h[N];
#pragma unroll
            for (int o = 0; o < N; ++o) h[o] = splat<C>(0.0f);
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) {
                const float w = c_quadRowWeights[k * kMaxKernelSize + kx];
#pragma unroll
                for (int o = 0; o < N; ++o) madd(h[o], w, p[o + kx]);
            }
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= kw) continue;
#pragma unroll
                for (int o = 0; o < N; ++o) madd(acc[k][o][j], c_quadColumnWeights[k * kMaxKernelSize + ky], h[o]);
            }
        }
    }
    storeQuad<T, C, N, PY, K>(g, m, x, yFirst, acc);
}

// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&separableQuadKernel<float, 1, 4, 1, 4, 1>), GeomMathIntKernel>);

template <class T, int C, int K> KernelRef variantFor(int radius, int pixels, int rows) {
    KernelRef kernel = nullptr;
    auto offer = [&](auto r, auto n, auto py) {
        constexpr int R = decltype(r)::value, N = decltype(n)::value, PY = decltype(py)::value;
        if constexpr (separableQuadBuilt(R, sizeof(T), C, K, N, PY))
            if (radius == R && pixels == N && rows == PY)
                kernel = separableQuadKernel<T, C, N, R, PY, K>;
    };
    auto eachShape = [&](auto r) {
        auto eachRows = [&](auto n) {
            offer(r, n, std::integral_constant<int, 2>{});
            offer(r, n, std::integral_constant<int, 4>{});
            offer(r, n, std::integral_constant<int, 8>{});
            offer(r, n, std::integral_constant<int, 16>{});
        };
        eachRows(std::integral_constant<int, 2>{});
        eachRows(std::integral_constant<int, 4>{});
        eachRows(std::integral_constant<int, 8>{});
    };
    eachShape(std::integral_constant<int, 1>{});
    eachShape(std::integral_constant<int, 2>{});
    eachShape(std::integral_constant<int, 3>{});
    eachShape(std::integral_constant<int, 4>{});
    eachShape(std::integral_constant<int, 5>{});
    eachShape(std::integral_constant<int, 6>{});
    return kernel;
}

}  // namespace

KernelRef separableQuadVariant(Depth depth, int channels, int radius, int kernels, int pixels, int rows) {
    if (depth == Depth::U8 && channels == 4)
        return kernels > 1 ? variantFor<std::uint8_t, 4, 2>(radius, pixels, rows)
                           : variantFor<std::uint8_t, 4, 1>(radius, pixels, rows);
    if (depth == Depth::U8 && channels == 3)
        return kernels > 1 ? variantFor<std::uint8_t, 3, 2>(radius, pixels, rows)
                           : variantFor<std::uint8_t, 3, 1>(radius, pixels, rows);
    if (channels != 1) return nullptr;
    if (depth == Depth::U8)
        return kernels > 1 ? variantFor<std::uint8_t, 1, 2>(radius, pixels, rows)
                           : variantFor<std::uint8_t, 1, 1>(radius, pixels, rows);
    if (depth == Depth::F32)
        return kernels > 1 ? variantFor<float, 1, 2>(radius, pixels, rows)
                           : variantFor<float, 1, 1>(radius, pixels, rows);
    return nullptr;
}

cudaError_t uploadSeparableQuadWeights(const float (&rows)[kMaxKernels * kMaxKernelSize],
                                       const float (&columns)[kMaxKernels * kMaxKernelSize], cudaStream_t stream) {
    cudaError_t err = cudaMemcpyToSymbolAsync(c_quadRowWeights, rows, sizeof rows, 0, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(c_quadColumnWeights, columns, sizeof columns, 0, cudaMemcpyHostToDevice, stream);
    return err;
}

}  // namespace fs::gpu
