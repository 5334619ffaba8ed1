// Mode "tensor": dense kernels on the tensor cores, in TF32 (sm_80 and up).
//
// A row of 16 outputs filtered by kernel row ky is a matrix product: the
// 16 x (16 + kw - 1) band (Toeplitz) matrix whose row x holds the weights
// shifted by x, times the input columns under it. Stacking 8 output rows as
// the product's columns gives one mma.sync m16n8k8 per 8 input columns:
//   A (16 x 8): A[x][j] = w[ky][j - x] (0 outside the kernel), read from a
//               zero-padded copy of the weights in shared memory;
//   B (8 x 8):  B[j][n] = tile[row n + ky][column j], the staged input;
//   C (16 x 8): output columns x, output rows n, accumulated in FP32.
// Each warp owns 16 output columns and 8 x NT rows; a block of 8 warps a
// 128-column tile (fewer where the device's shared memory per block is
// short: large kernels on GeForce cards). The band is mostly zeros (15x15:
// 15 of 32 products count, 31x31: 31 of 48); on gray images from 9x9 the
// tensor cores' rate makes up for it (docs/performance.md). TF32 keeps 10 of
// float's 23 mantissa bits: each product errs by up to 2^-10 of |w x|, so
// the mode is approximate; its bound is tested and shown beside its time.
// 8-bit samples are TF32 numbers already, so on 8-bit images each weight is
// split into two TF32 parts (hi + lo, 21 bits together) and multiplied
// twice: the products are then as exact as FP32's, at twice the tensor
// instructions.
//
// A zero band entry times Inf or NaN is NaN, which would spread a non-finite
// sample over 16 output columns. A tile holding one is filtered directly
// instead (FP32 FMAs over the same staged values), so non-finite outputs
// stay where the reference puts them, as in the fft mode.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "constant_weights.cuh"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

constexpr int kTensorMaxWarps = 8;  // 8 beat 4: fewer halo columns an output, more warps to hide staging
constexpr int kBandPad = 15;  // zero weights left of each padded weight row: A[x][j] for j < x

// Input columns a warp's band covers (16 outputs + the kernel's width - 1), in chunks of 8.
__host__ __device__ constexpr int bandChunks(int kw) { return (15 + kw + 7) / 8; }
// A padded weight row: 15 zeros, the kernel row, zeros to the last chunk.
__host__ __device__ constexpr int bandRowFloats(int kw) { return 8 * bandChunks(kw) + kBandPad + 1; }
// Staged tile row: the last warp's band end; 4 more floats make a row 4 banks
// past a multiple of 32, so B's 8 rows x 4 columns fall in 32 distinct banks.
__host__ __device__ constexpr int tileRowFloats(int kw, int warps) {
    return 16 * (warps - 1) + 8 * bandChunks(kw) + 4;
}
// Output rows per warp: 8 x NT. Each channel and kernel keeps its own
// accumulators (4 registers per 8 rows), so colour and magnitudes take fewer rows.
constexpr int rowTilesFor(int channels, int kernels) { return channels == 1 ? 8 : kernels == 1 ? 4 : 2; }

// Band copies per weight: hi and lo on 8-bit images, else one.
template <class T> constexpr int bandParts() { return std::is_same_v<T, std::uint8_t> ? 2 : 1; }

std::size_t tensorSharedBytes(int kw, int kh, int channels, int kernels, int parts, int warps) {
    const int tileRows = 8 * rowTilesFor(channels, kernels) + kh - 1;
    return sizeof(float) * (static_cast<std::size_t>(kernels) * parts * kh * bandRowFloats(kw) +
                            static_cast<std::size_t>(tileRows) * tileRowFloats(kw, warps)) +
           16;  // a non-finite flag per channel
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ float roundToTf32(float v) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return __uint_as_float(r);
}

__device__ __forceinline__ void mmaTf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Channel c of the tile (image columns x0 - rx.., rows y0 - ry..) as TF32
// floats. Samples no stored output reads (past the image's right edge plus
// the halo, past the rows this launch's source holds) are zeros. A warp takes
// two rows at a time, each thread all its columns of both: up to 10 loads in
// flight before the first store (one at a time left the block waiting on L2).
template <class T, int C>
__device__ __forceinline__ bool stageChannel(float* tile, int ld, int tileRows, const KernelGeom& g,
                                             const KernelMath& m, int x0, int y0, int c) {
    constexpr int kRows = 2, kCols = (tileRowFloats(kMaxKernelSize, kTensorMaxWarps) + 31) / 32;
    const int rx = m.kw / 2, ry = m.kh / 2;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    const int rowsHeld = windowRows(g, y0, tileRows - 2 * ry, ry);
    const int colsRead = min(16 * warps + m.kw - 1, g.width + rx - (x0 - rx));
    bool finite = true;
    for (int r0 = warp; r0 < tileRows; r0 += kRows * warps) {
        float v[kRows][kCols];
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
            const int r = r0 + i * warps;
            const int iy = r < rowsHeld ? borderIndex(y0 - ry + r, g.imageHeight, g.border) : -2;
            const T* src = iy >= 0 ? reinterpret_cast<const T*>(sourceRow(g, iy)) : nullptr;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int col = lane + 32 * j;
                v[i][j] = 0.0f;
                if (iy != -2 && col < colsRead) {
                    const int ix = borderIndex(x0 - rx + col, g.width, g.border);
                    v[i][j] = (ix | iy) < 0 ? g.borderValue : static_cast<float>(__ldg(src + ix * C + c));
                }
            }
        }
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
            const int r = r0 + i * warps;
            if (r >= tileRows) break;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int col = lane + 32 * j;
                if (col >= ld) break;
                // Checked after rounding: a float within half a TF32 step of the largest rounds to Inf.
                const float t = roundToTf32(v[i][j]);
                finite = finite && isfinite(t);
                tile[r * ld + col] = t;
            }
        }
    }
    return finite;
}
#endif

template <class T, int C, int K>
__global__ void __launch_bounds__(32 * kTensorMaxWarps) tensorKernel(KernelGeom g, KernelMath m) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int NT = rowTilesFor(C, K), S = bandParts<T>();
    extern __shared__ __align__(16) float tensorShared[];
    const int kw = m.kw, kh = m.kh;
    const int chunks = bandChunks(kw), bandRow = bandRowFloats(kw), ld = tileRowFloats(kw, blockDim.x >> 5);
    const int tileRows = 8 * NT + kh - 1;
    float* band = tensorShared;  // K kernels x S parts x kh padded rows
    const int bandFloats = kh * bandRow;
    float* tile = band + K * S * bandFloats;
    int* nonFinite = reinterpret_cast<int*>(tile + tileRows * ld);  // one flag per channel

    if (threadIdx.x < C) nonFinite[threadIdx.x] = 0;
    for (int i = threadIdx.x; i < K * bandFloats; i += blockDim.x) {
        const int row = i / bandRow, t = i - row * bandRow - kBandPad;  // row: kernel x kh + ky
        const float w = t >= 0 && t < kw ? c_weights[row * kw + t] : 0.0f, hi = roundToTf32(w);
        const int k = row / kh;
        float* parts = band + k * S * bandFloats + (i - k * bandFloats);
        parts[0] = hi;
        if (S == 2) parts[bandFloats] = roundToTf32(w - hi);  // w - hi is exact in FP32
    }
    const int x0 = blockIdx.x * 16 * (blockDim.x >> 5);
    const int y0 = g.outRow0 + blockIdx.y * 8 * NT;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int group = lane >> 2, inGroup = lane & 3;
    const int warpCol = 16 * warp;

    float acc[K][C][NT][4];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        __syncthreads();  // the band and flags are written; the previous channel's tile is read
        if (!stageChannel<T, C>(tile, ld, tileRows, g, m, x0, y0, c)) nonFinite[c] = 1;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[k][c][nt][v] = 0.0f;
        if (nonFinite[c] == 0) {
            for (int ky = 0; ky < kh; ++ky) {
                // A[x][j] = band[j - x + kBandPad]: row `group` (+8) and column `inGroup` (+4) of the fragment.
                const float* bandAt = band + ky * bandRow + inGroup - group + kBandPad;
                const float* tileAt = tile + (ky + group) * ld + warpCol + inGroup;
#pragma unroll 2
                for (int chunk = 0; chunk < chunks; ++chunk, bandAt += 8, tileAt += 8) {
                    unsigned a[K * S][4];  // kernel k, part p at k * S + p
#pragma unroll
                    for (int q = 0; q < K * S; ++q) {
                        const float* at = bandAt + q * bandFloats;
                        a[q][0] = __float_as_uint(at[0]), a[q][1] = __float_as_uint(at[-8]);
                        a[q][2] = __float_as_uint(at[4]), a[q][3] = __float_as_uint(at[-4]);
                    }
#pragma unroll
                    for (int nt = 0; nt < NT; ++nt) {
                        const unsigned b[2] = {__float_as_uint(tileAt[8 * nt * ld]),
                                               __float_as_uint(tileAt[8 * nt * ld + 4])};
#pragma unroll
                        for (int q = K * S - 1; q >= 0; --q) mmaTf32(acc[q / S][c][nt], a[q], b);  // lo before hi
                    }
                }
            }
        } else {
            // The accumulators' own outputs, each a direct window sum.
#pragma unroll
            for (int k = 0; k < K; ++k)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                    for (int v = 0; v < 4; ++v) {
                        const int x = warpCol + group + (v >> 1) * 8, n = 8 * nt + 2 * inGroup + (v & 1);
                        const float* hi = band + k * S * bandFloats + kBandPad;
                        float s = 0.0f;
                        for (int ky = 0; ky < kh; ++ky)
                            for (int kx = 0; kx < kw; ++kx) {
                                const int at = ky * bandRow + kx;
                                const float w = S == 2 ? hi[at] + hi[at + bandFloats] : hi[at];
                                s = fmaf(w, tile[(n + ky) * ld + x + kx], s);
                            }
                        acc[k][c][nt][v] = s;
                    }
        }
    }
    // Fragment value v of n-tile nt is output column group + 8 (v / 2), row 2 inGroup + v % 2.
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int v = 0; v < 4; ++v) {
            const int x = x0 + warpCol + group + (v >> 1) * 8, y = y0 + 8 * nt + 2 * inGroup + (v & 1);
            if (x >= g.width || y >= g.outRow0 + g.outRows) continue;
            Px<C> a, b;
#pragma unroll
            for (int c = 0; c < C; ++c) a.c[c] = acc[0][c][nt][v], b.c[c] = acc[K - 1][c][nt][v];
            storePixel<T, C>(g, m, x, y, a, b);
        }
#else
    __trap();  // not launched: the mode refuses devices before compute capability 8.0
#endif
}

// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&tensorKernel<float, 1, 1>), GeomMathKernel>);

KernelRef tensorKernelFor(const PreparedFilter& f) {
    KernelRef kernel = nullptr;
    dispatchPixel(f.inDepth, f.channels, [&](auto tag, auto channels) {
        constexpr int C = decltype(channels)::value;
        kernel = f.math.kernelCount > 1 ? tensorKernel<decltype(tag), C, 2>
                                        : tensorKernel<decltype(tag), C, 1>;
    });
    return kernel;
}

// The tensor cores' TF32 instructions (mma.sync .tf32) start with compute capability 8.0.
std::string tensorDeviceProblem() {
    if (!deviceUsable()) return {};
    const cudaDeviceProp& p = deviceProps();
    if (p.major >= 8) return {};
    return "the tensor mode needs TF32 tensor cores (compute capability 8.0, Ampere, or newer); this GPU is " +
           std::to_string(p.major) + "." + std::to_string(p.minor);
}

Refusal planTensor(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (!want.isDefault())
        return refuseKnob("tensor", "launch knobs (block, outputs per thread, halo, radius): each warp's 16 columns "
                                    "and 8-row tiles are the tensor instruction's shape");
    if (const std::string why = tensorDeviceProblem(); !why.empty()) return {RefusalReason::DeviceLimit, why};
    const int rowsPerBlock = 8 * rowTilesFor(f.channels, f.math.kernelCount);
    const int parts = f.inDepth == Depth::U8 ? 2 : 1;
    // The widest tile whose band and staged input fit the device's shared memory per block.
    const std::size_t limit = deviceUsable() ? deviceProps().sharedMemPerBlockOptin : ~std::size_t{0};
    const auto bytesFor = [&](int warps) {
        return tensorSharedBytes(f.math.kw, f.math.kh, f.channels, f.math.kernelCount, parts, warps);
    };
    int warps = kTensorMaxWarps;
    while (warps > 1 && bytesFor(warps) > limit) warps /= 2;
    out.kernel = tensorKernelFor(f);
    out.block = dim3(32 * warps, 1);
    out.grid = dim3(ceilDiv(width, 16 * warps), ceilDiv(std::max(rows, 1), rowsPerBlock));
    out.sharedBytes = bytesFor(warps);
    out.config = want;
    const int chunks = bandChunks(f.math.kw);
    out.variant = "tensor, TF32 mma m16n8k8" + std::string(parts == 2 ? " (weights as hi + lo)" : "") + ", " +
                  std::to_string(16 * warps) + "x" + std::to_string(rowsPerBlock) + " outputs a block; " +
                  std::to_string(f.math.kw) + " of " + std::to_string(8 * chunks) + " band columns are weights";
    return checkPlan(out);
}

Refusal supportsTensor(const PreparedFilter& f) { return supportedIfPlans(planTensor, f); }

cudaError_t launchTensor(const LaunchArgs& a, cudaStream_t stream) {
    return planAndLaunch<GeomMathKernel>(tensorMode(), a, stream, a.geom, a.filter->math);
}

std::vector<LaunchConfig> tensorCandidates() { return {LaunchConfig{}}; }

}  // namespace

const ModeImpl& tensorMode() {
    static const ModeImpl mode{
        "tensor",
        "Dense kernels on the tensor cores in TF32: each kernel row becomes a band matrix, and one matrix "
        "instruction multiplies it with 8 input columns of 8 rows at once. Several times the FP32 lanes' rate, but "
        "TF32 keeps only 10 mantissa bits, so results differ from the reference by up to about 1/1000 of the "
        "response; the studio shows the measured error beside the time. Needs an Ampere or newer GPU.",
        supportsTensor,
        uploadConstantWeights,
        planTensor,
        launchTensor,
        tensorCandidates,
        nullptr,
        /*isDefault=*/false,
        /*approximate=*/true,
        tensorDeviceProblem};
    return mode;
}

}  // namespace fs::gpu
