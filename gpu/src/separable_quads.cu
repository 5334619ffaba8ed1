// The separable mode's gray quads: square rank-1 kernels (one, or the two of
// a magnitude) on gray u8 and f32 images, with no shared memory and no
// barrier. Each thread computes N adjacent pixels x PY rows (N = 4, or 8 on
// u8): it loads each of its PY + 2R input rows once (one N-pixel load and
// the neighbouring words, as the registers mode's gray quads do), filters the
// row in registers into N values per kernel, and adds those to the PY output
// rows they feed: per output kw x (1 + 2R / PY) row multiply-adds and kw
// column ones, against kw x kw in the registers mode, and no ring in shared
// memory with its barriers as in the rolling strip. The outputs outside the
// quads' span run in leading rows of blocks of the same launch
// (gray_quads.cuh), with the same arithmetic in the same order, so the frame
// and the quads agree bit for bit.
#include "gray_quads.cuh"
#include "kernel_variants.hpp"
#include "separable_quads.hpp"

namespace fs::gpu {
namespace {

__constant__ float c_quadRowWeights[kMaxKernels * kMaxKernelSize];
__constant__ float c_quadColumnWeights[kMaxKernels * kMaxKernelSize];

// The quads' arithmetic for one frame output: each kernel row's taps summed
// in order, then the rows weighted in order, every tap through
// fs::borderIndex.
template <class T, int R, int K>
__device__ __forceinline__ void separableFramePixel(const KernelGeom& g, const KernelMath& m, int x, int y) {
    constexpr int kw = 2 * R + 1;
    Px<1> acc[K];
#pragma unroll
    for (int k = 0; k < K; ++k) acc[k] = splat<1>(0.0f);
#pragma unroll 1
    for (int ky = 0; ky < kw; ++ky) {
        float h[K];
#pragma unroll
        for (int k = 0; k < K; ++k) h[k] = 0.0f;
#pragma unroll
        for (int kx = 0; kx < kw; ++kx) {
            const float v = loadPixel<T, 1>(g, x + kx - R, y + ky - R).c[0];
#pragma unroll
            for (int k = 0; k < K; ++k) h[k] = fmaf(c_quadRowWeights[k * kMaxKernelSize + kx], v, h[k]);
        }
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k].c[0] = fmaf(c_quadColumnWeights[k * kMaxKernelSize + ky], h[k], acc[k].c[0]);
    }
    storePixel<T, 1>(g, m, x, y, acc[0], acc[K - 1]);
}

template <class T, int N, int R, int PY, int K>
__global__ void __launch_bounds__(256) separableQuadKernel(KernelGeom g, KernelMath m, int frameBlockRows) {
    constexpr int kw = 2 * R + 1;
    const QuadSpan span = grayQuadSpan(g, m, sizeof(T), N, R, PY);
    if (quadFrameBlock<PY>(g, quadFrame(g, N, PY, span), frameBlockRows,
                           [&](int x, int y) { separableFramePixel<T, R, K>(g, m, x, y); }))
        return;
    const int qx = blockIdx.x * blockDim.x + threadIdx.x;
    const int qy = (blockIdx.y - frameBlockRows) * blockDim.y + threadIdx.y;
    if (!span.contains(qx, qy)) return;
    const int x = N * qx, yFirst = g.outRow0 + qy * PY;
    Px<1> acc[K][N][PY];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int o = 0; o < N; ++o)
#pragma unroll
            for (int j = 0; j < PY; ++j) acc[k][o][j] = splat<1>(0.0f);
    // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
    const unsigned char* base = sourceRow(g, yFirst - R) + x * sizeof(T);
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        Px<1> p[N + 2 * R];
        loadGrayQuadRow<T, N, R>(base + i * g.srcPitch, p);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            float h[N];
#pragma unroll
            for (int o = 0; o < N; ++o) h[o] = 0.0f;
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) {
                const float w = c_quadRowWeights[k * kMaxKernelSize + kx];
#pragma unroll
                for (int o = 0; o < N; ++o) h[o] = fmaf(w, p[o + kx].c[0], h[o]);
            }
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= kw) continue;
#pragma unroll
                for (int o = 0; o < N; ++o)
                    acc[k][o][j].c[0] = fmaf(c_quadColumnWeights[k * kMaxKernelSize + ky], h[o], acc[k][o][j].c[0]);
            }
        }
    }
    storeGrayQuad<T, N, PY, K>(g, m, x, yFirst, acc);
}

template <class T, int K> const void* variantFor(int radius, int pixels, int rows) {
    const void* kernel = nullptr;
    auto offer = [&](auto r, auto n, auto py) {
        constexpr int R = decltype(r)::value, N = decltype(n)::value, PY = decltype(py)::value;
        if constexpr (separableQuadBuilt(R, sizeof(T), K, N, PY))
            if (radius == R && pixels == N && rows == PY)
                kernel = reinterpret_cast<const void*>(separableQuadKernel<T, N, R, PY, K>);
    };
    auto eachRows = [&](auto r) {
        offer(r, std::integral_constant<int, 4>{}, std::integral_constant<int, 4>{});
        offer(r, std::integral_constant<int, 4>{}, std::integral_constant<int, 8>{});
        offer(r, std::integral_constant<int, 4>{}, std::integral_constant<int, 16>{});
        offer(r, std::integral_constant<int, 8>{}, std::integral_constant<int, 4>{});
        offer(r, std::integral_constant<int, 8>{}, std::integral_constant<int, 8>{});
    };
    eachRows(std::integral_constant<int, 1>{});
    eachRows(std::integral_constant<int, 2>{});
    eachRows(std::integral_constant<int, 3>{});
    eachRows(std::integral_constant<int, 4>{});
    return kernel;
}

}  // namespace

const void* separableQuadVariant(Depth depth, int radius, int kernels, int pixels, int rows) {
    if (depth == Depth::U8)
        return kernels > 1 ? variantFor<std::uint8_t, 2>(radius, pixels, rows)
                           : variantFor<std::uint8_t, 1>(radius, pixels, rows);
    if (depth == Depth::F32)
        return kernels > 1 ? variantFor<float, 2>(radius, pixels, rows) : variantFor<float, 1>(radius, pixels, rows);
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
