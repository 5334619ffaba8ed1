// The shared mode's gray variant: one kernel on a 1-channel image, each thread
// computing 4 adjacent columns x 4 rows. mode_shared.cu plans and launches it.
#include "constant_weights.cuh"
#include "shared_kernel.cuh"

namespace fs::gpu {
namespace {

// Like sharedKernel<1, R, 4, 1>, but the 4 columns of a thread are adjacent:
// each window row is read once as float4s (2R + 4 values, no bank conflicts)
// and feeds every output of the thread it touches, about one shared load per
// 16 FMAs where sharedKernel issues one per 4 (Nsight Compute on its dense
// 15x15: issue-bound, FMA pipe at 52 %). Each output sums its taps in
// row-major order, like the CPU reference. Up to 13x13 the rows are unrolled
// and the weights are constant-bank operands; beyond, the unrolled code
// overflows the instruction cache (H100, 15x15: a third of the stalls were
// instruction fetch, no faster than the loop), so a row's weights come from
// shared memory as float4 broadcasts.
constexpr int kQuadUnrolledFmas = 13 * 13 * kSharedQuadRows * 4;

template <int R>
__global__ void __launch_bounds__(512) sharedQuadKernel(KernelGeom g, KernelMath m, int, int perThreadHalo) {
    extern __shared__ float4 sharedRaw[];
    float* s = reinterpret_cast<float*>(sharedRaw);
    constexpr int kw = 2 * R + 1, kWindow = sharedQuadWindow(R), kWeightStride = (kw + 3) / 4 * 4;
    constexpr int kRows = kSharedQuadRows + 2 * R;
    constexpr bool kUnrolled = kw * kw * kSharedQuadRows * 4 <= kQuadUnrolledFmas;
    const int tileW = blockDim.x * 4, tileH = blockDim.y * kSharedQuadRows;
    const int stride = sharedQuadStride(tileW, R);
    const int x0 = blockIdx.x * tileW;
    const int yTile = g.outRow0 + blockIdx.y * tileH;
    loadTileAnyDepth<1>(perThreadHalo != 0, s, stride, g, m, x0 - R, yTile - R, tileW + 2 * R,
                        windowRows(g, yTile, tileH, R));
    float* sharedWeights = s + (tileH + 2 * R) * stride;
    if constexpr (!kUnrolled) {
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < kw * kw; i += blockDim.x * blockDim.y)
            sharedWeights[(i / kw) * kWeightStride + i % kw] = c_weights[i];
    }
    __syncthreads();

    float acc[kSharedQuadRows][4];
#pragma unroll
    for (int j = 0; j < kSharedQuadRows; ++j)
#pragma unroll
        for (int a = 0; a < 4; ++a) acc[j][a] = 0.0f;
    const float* window = s + threadIdx.y * kSharedQuadRows * stride + threadIdx.x * 4;
    // Window row i feeds output row j through kernel row i - j.
    auto addRow = [&](int i, auto weightRow) {
        float v[kWindow];
#pragma unroll
        for (int q = 0; q < kWindow / 4; ++q) {
            const float4 t = *reinterpret_cast<const float4*>(window + i * stride + 4 * q);
            v[4 * q] = t.x, v[4 * q + 1] = t.y, v[4 * q + 2] = t.z, v[4 * q + 3] = t.w;
        }
#pragma unroll
        for (int j = 0; j < kSharedQuadRows; ++j) {
            const int ky = i - j;
            if (ky < 0 || ky >= kw) continue;
            const auto w = weightRow(ky);
#pragma unroll
            for (int kx = 0; kx < kw; ++kx)
#pragma unroll
                for (int a = 0; a < 4; ++a) acc[j][a] = fmaf(w[kx], v[kx + a], acc[j][a]);
        }
    };
    if constexpr (kUnrolled) {
        struct ConstantRow {
            int ky;
            __device__ float operator[](int kx) const { return c_weights[ky * kw + kx]; }
        };
#pragma unroll
        for (int i = 0; i < kRows; ++i) addRow(i, [](int ky) { return ConstantRow{ky}; });
    } else {
        struct SharedRow {
            float w[kWeightStride];
            __device__ float operator[](int kx) const { return w[kx]; }
        };
        auto sharedRow = [&](int ky) {
            SharedRow row;
#pragma unroll
            for (int q = 0; q < kWeightStride / 4; ++q) {
                const float4 t = *reinterpret_cast<const float4*>(sharedWeights + ky * kWeightStride + 4 * q);
                row.w[4 * q] = t.x, row.w[4 * q + 1] = t.y, row.w[4 * q + 2] = t.z, row.w[4 * q + 3] = t.w;
            }
            return row;
        };
#pragma unroll 1
        for (int i = 0; i < kRows; ++i) addRow(i, sharedRow);
    }

#pragma unroll
    for (int j = 0; j < kSharedQuadRows; ++j) {
        const int y = yTile + threadIdx.y * kSharedQuadRows + j;
        if (y >= g.outRow0 + g.outRows) break;
#pragma unroll
        for (int a = 0; a < 4; ++a) {
            const int x = x0 + threadIdx.x * 4 + a;
            const Px<1> out{{acc[j][a]}};
            if (x < g.width) storePixelAnyDepth<1>(g, m, x, y, out, out);
        }
    }
}

}  // namespace

// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&sharedQuadKernel<2>), GeomMathIntIntKernel>);

KernelRef sharedQuadKernelFor(int radius) {
    KernelRef k = nullptr;
    detail::forRadius<kSharedMaxRadius>(radius, [&](auto r) {
        constexpr int R = decltype(r)::value;
        if constexpr (R > 0 && sharedQuadRadiusBuilt(R)) k = sharedQuadKernel<R>;
    });
    return k;
}

cudaError_t uploadSharedQuadWeights(const PreparedFilter& f, cudaStream_t stream) {
    return uploadConstantWeights(f, stream);
}

}  // namespace fs::gpu
