// The registers mode's RGBA8 3x3 variant in exact 16-bit integer lanes
// (PreparedFilter::packedLanes, fs/lane_math.hpp): 4 adjacent pixels per
// thread, each tap one integer multiply-add per word. Chosen by the integer
// lanes row of mode_registers.cu's table.
#include "fs/lane_math.hpp"
#include "registers_kernel.cuh"

namespace fs::gpu {

// ---- RGBA8 3x3 in exact integer lanes (PreparedFilter::packedLanes) -------
namespace {

__constant__ int c_laneWeights[2 * 9];
__constant__ int c_laneShift;
__constant__ unsigned c_laneBias;

// quadInterior for the lane kernels: they read the source and write the
// destination as 16-byte vectors, and quads at the left and right edges stay.
template <int PY, int K>
__device__ __forceinline__ bool laneQuadStart(const KernelGeom& g, const KernelMath& m, int& x, int& yFirst,
                                              QuadNeighbours& neighbours) {
    return quadInterior<std::uint8_t, 4, PY, K>(
        g, m, g.srcPitch | g.dstPitch | reinterpret_cast<std::uintptr_t>(g.src) | reinterpret_cast<std::uintptr_t>(g.dst),
        x, yFirst, neighbours);
}

// One kernel's even and odd lane sums as an output word: divided by 2^shift
// and rounded, clamped where results can leave [0, 255] (kClamp), packed.
template <bool kClamp> struct LaneFinish {
    lanes::Rounding rounding = lanes::rounding(c_laneShift);
    lanes::Clamp clamp = lanes::clamp(lanes::LaneForm{c_laneShift, c_laneBias, kClamp});

    __device__ unsigned word(unsigned even, unsigned odd) const {
        unsigned e = lanes::roundLanes(even, rounding), d = lanes::roundLanes(odd, rounding);
        if constexpr (kClamp) e = lanes::clampLanes(e, clamp), d = lanes::clampLanes(d, clamp);
        return lanes::pack(e, d);
    }
};

// 4 packed RGBA8 pixels at (x, y) as one 16-byte store.
__device__ __forceinline__ void storeLaneQuad(const KernelGeom& g, int x, int y, const unsigned (&word)[4]) {
    unsigned char* out = g.dst + static_cast<std::size_t>(y - g.outRow0) * g.dstPitch + x * 4;
    *reinterpret_cast<uint4*>(out) = make_uint4(word[0], word[1], word[2], word[3]);
}

// Like quadKernel<u8, 4, PY, K> (4 adjacent pixels, one 16-byte load per
// input row and two 4-byte neighbours), but each pixel is two words of two
// 16-bit lanes (fs/lane_math.hpp) and every tap is one integer multiply-add
// per word and kernel: 18 per pixel and kernel instead of 36 FMAs, no
// byte-to-float conversion. One kernel: lanes start at the bias, are rounded
// half to even and, where results can leave [0, 255], clamped (kClamp). Two
// (a gradient magnitude): signed lanes from lanes::kGradientBias, the root
// through lanes::magnitudeWord; kGradientZeros skips the first kernel's centre column
// and the second's centre row (zero in Sobel, Scharr, Prewitt: 6 of 18 taps
// saved). Quads at the left and right edges read
// their outside neighbours through fs::borderIndexNear (quadInterior); those at
// the top and bottom rows, at a constant border's left and right edges, or
// on unaligned rows take the float column path, which is exact for these
// weights too.
template <int PY, int K, bool kClamp, bool kGradientZeros>
__global__ void __launch_bounds__(256) rgba8LaneKernel(KernelGeom g, KernelMath m, int) {
    int x, yFirst;
    QuadNeighbours neighbours;
    if (!laneQuadStart<PY, K>(g, m, x, yFirst, neighbours)) return;
    const unsigned start = K == 1 ? c_laneBias * 0x00010001u : lanes::kGradientBias;
    unsigned even[K][4][PY], odd[K][4][PY];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int o = 0; o < 4; ++o)
#pragma unroll
            for (int j = 0; j < PY; ++j) even[k][o][j] = odd[k][o][j] = start;
    // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
    const unsigned char* base = sourceRow(g, yFirst - 1) + x * 4;
#pragma unroll
    for (int i = 0; i < PY + 2; ++i) {
        unsigned px[6];
        loadQuadRow(base + i * g.srcPitch, px, neighbours);
        unsigned pe[6], po[6];
#pragma unroll
        for (int p = 0; p < 6; ++p) pe[p] = lanes::evenChannels(px[p]), po[p] = lanes::oddChannels(px[p]);
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            const int ky = i - j;
            if (ky < 0 || ky >= 3) continue;
#pragma unroll
            for (int k = 0; k < K; ++k)
#pragma unroll
                for (int kx = 0; kx < 3; ++kx) {
                    if (kGradientZeros && ((k == 0 && kx == 1) || (k == K - 1 && ky == 1))) continue;
                    const unsigned w = static_cast<unsigned>(c_laneWeights[k * 9 + ky * 3 + kx]);
#pragma unroll
                    for (int o = 0; o < 4; ++o) even[k][o][j] += w * pe[o + kx], odd[k][o][j] += w * po[o + kx];
                }
        }
    }
    const LaneFinish<kClamp> finish;
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        unsigned word[4];
#pragma unroll
        for (int o = 0; o < 4; ++o) {
            if constexpr (K == 1) {
                word[o] = finish.word(even[0][o][j], odd[0][o][j]);
            } else {
                word[o] = lanes::magnitudeWord(even[0][o][j], even[K - 1][o][j], odd[0][o][j], odd[K - 1][o][j]);
            }
        }
        storeLaneQuad(g, x, yFirst + j, word);
    }
}

__constant__ int c_laneGradientCentre;  // b of lanes::gradientPairCentre

// The magnitude of a [1 b 1] x [-1 0 1] gradient pair (Sobel, Prewitt;
// lanes::gradientPairCentre) in the same lanes, separably. Each input row
// gives per word a difference d = p[o+2] - p[o] and a sum s = p[o] + b p[o+1]
// + p[o+2]; output row j is gx = d[j] + b d[j+1] + d[j+2] and gy = s[j+2] -
// s[j]: 9 integer operations per word and output row at 2 rows (the 2D kernel:
// 12 multiply-adds), fewer with more rows, which share the loads (but more
// rows measured slower: longer dependent chains, fewer threads;
// docs/performance.md). Rows
// stream: row j is finished and stored once input row j+2 is in, so only
// three rows of sums are live whatever PY is. Quads at the top and bottom
// rows, at a constant border's left and right edges, or on unaligned rows
// take the float column path, as in rgba8LaneKernel.
template <int PY>
__global__ void __launch_bounds__(256) rgba8GradientLaneKernel(KernelGeom g, KernelMath m, int) {
    int x, yFirst;
    QuadNeighbours neighbours;
    if (!laneQuadStart<PY, 2>(g, m, x, yFirst, neighbours)) return;
    const unsigned b = static_cast<unsigned>(c_laneGradientCentre);
    // Words 0-3: the even channels of the 4 pixels, 4-7: the odd ones.
    unsigned gx[PY][8], sums[PY][8];
    const unsigned char* base = sourceRow(g, yFirst - 1) + x * 4;
#pragma unroll
    for (int i = 0; i < PY + 2; ++i) {
        unsigned px[6];
        loadQuadRow(base + i * g.srcPitch, px, neighbours);
        unsigned gy[8];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            unsigned p[6];
#pragma unroll
            for (int q = 0; q < 6; ++q) p[q] = h ? lanes::oddChannels(px[q]) : lanes::evenChannels(px[q]);
#pragma unroll
            for (int o = 0; o < 4; ++o) {
                const int w = 4 * h + o;
                const unsigned d = p[o + 2] - p[o], s = b * p[o + 1] + (p[o] + p[o + 2]);
                // The bias goes in with the last row, where a three-input add takes it for free.
                if (i < PY) gx[i][w] = d, sums[i][w] = s;         // top row of output i
                if (i >= 1 && i - 1 < PY) gx[i - 1][w] += b * d;  // middle row of output i-1
                if (i >= 2)                                       // bottom row of output i-2
                    gx[i - 2][w] += d + lanes::kGradientBias, gy[w] = s - sums[i - 2][w] + lanes::kGradientBias;
            }
        }
        if (i >= 2) {
            const int j = i - 2;
            unsigned word[4];
#pragma unroll
            for (int o = 0; o < 4; ++o) word[o] = lanes::magnitudeWord(gx[j][o], gy[o], gx[j][4 + o], gy[4 + o]);
            storeLaneQuad(g, x, yFirst + j, word);
        }
    }
}

// BGR u8 3x3, one kernel, in the same exact lanes: the row is a stream of
// bytes whose horizontal neighbours lie 3 bytes away (the same channel of the
// next pixel), so each byte is filtered like an RGBA8 channel. A thread takes
// 16 adjacent bytes (5 1/3 pixels: one 16-byte load per input row, and the
// 4-byte words each side); each tap's neighbours are the words shifted by 3
// bytes (one byte permute each), split into even and odd bytes as
// rgba8LaneKernel splits channels. Threads at the row's ends, at the top and
// bottom rows, or on unaligned rows take the float column path for every
// pixel their bytes touch (pixels straddling two threads are written by both,
// with the same values). Gray u8 in these lanes (neighbours 1 byte away) ran
// slower than its 4-pixel float kernel, which converts each byte once for all
// its taps where the lanes permute bytes per input row, so it keeps that.
template <int PY, bool kClamp>
__global__ void __launch_bounds__(256) bgr8LaneKernel(KernelGeom g, KernelMath m, int) {
    constexpr int CS = 3;  // bytes from a sample to its neighbour
    const int rowBytes = g.width * CS;
    const int xb = 16 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    const int outEnd = g.outRow0 + g.outRows;
    if (xb >= rowBytes || yFirst >= outEnd) return;
    const std::uintptr_t alignBits =
        g.srcPitch | g.dstPitch | reinterpret_cast<std::uintptr_t>(g.src) | reinterpret_cast<std::uintptr_t>(g.dst);
    const bool interior = (alignBits & 15u) == 0 && xb >= 16 && xb + 20 <= rowBytes && yFirst >= 1 &&
                          yFirst + PY + 1 <= g.imageHeight && yFirst + PY <= outEnd;
    if (!interior) {
#pragma unroll 1
        for (int px = xb / CS; px <= (xb + 15) / CS && px < g.width; ++px)
            registersColumn<std::uint8_t, CS, 1, 1, PY, 1>(g, m, px, yFirst);
        return;
    }
    // Byte selectors of (left word, right word): the stream 3 bytes back, and 3 bytes ahead.
    constexpr unsigned kBack = 0x4321u, kAhead = 0x6543u;
    const unsigned start = c_laneBias * 0x00010001u;
    unsigned even[4][PY], odd[4][PY];
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
        for (int j = 0; j < PY; ++j) even[o][j] = odd[o][j] = start;
    // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
    const unsigned char* base = sourceRow(g, yFirst - 1) + xb;
#pragma unroll
    for (int i = 0; i < PY + 2; ++i) {
        unsigned w[6];
        loadQuadRow(base + i * g.srcPitch, w);
#pragma unroll
        for (int o = 0; o < 4; ++o) {
            const unsigned taps[3] = {__byte_perm(w[o], w[o + 1], kBack), w[o + 1], __byte_perm(w[o + 1], w[o + 2], kAhead)};
            unsigned pe[3], po[3];
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) pe[kx] = lanes::evenChannels(taps[kx]), po[kx] = lanes::oddChannels(taps[kx]);
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= 3) continue;
#pragma unroll
                for (int kx = 0; kx < 3; ++kx) {
                    const unsigned wt = static_cast<unsigned>(c_laneWeights[ky * 3 + kx]);
                    even[o][j] += wt * pe[kx], odd[o][j] += wt * po[kx];
                }
            }
        }
    }
    const LaneFinish<kClamp> finish;
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        unsigned word[4];
#pragma unroll
        for (int o = 0; o < 4; ++o) word[o] = finish.word(even[o][j], odd[o][j]);
        unsigned char* out = g.dst + static_cast<std::size_t>(yFirst + j - g.outRow0) * g.dstPitch + xb;
        *reinterpret_cast<uint4*>(out) = make_uint4(word[0], word[1], word[2], word[3]);
    }
}

}  // namespace

// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&rgba8LaneKernel<2, 1, false, false>), GeomMathIntKernel>);
static_assert(std::is_same_v<decltype(&rgba8GradientLaneKernel<2>), GeomMathIntKernel>);
static_assert(std::is_same_v<decltype(&bgr8LaneKernel<2, false>), GeomMathIntKernel>);

KernelRef bgr8LaneVariant(int rows, bool clamps) {
    if (rows != 2) return nullptr;
    return clamps ? bgr8LaneKernel<2, true>
                  : bgr8LaneKernel<2, false>;
}

// One kernel: 2 or 4 rows, clamped or not; a magnitude: 2 rows (4 would hold
// 64 sums), gradient zeros skipped or not; a separable gradient pair: 2 or 4
// rows. 4 rows (slower for Gaussian and the separable gradient,
// docs/performance.md) are built only with every variant.
KernelRef rgba8LaneVariant(int rows, int kernels, bool clamps, bool gradientZeros, bool separableGradient) {
    if (rows == 2) {
        if (kernels > 1 && separableGradient) return rgba8GradientLaneKernel<2>;
        if (kernels > 1)
            return gradientZeros ? rgba8LaneKernel<2, 2, false, true>
                                 : rgba8LaneKernel<2, 2, false, false>;
        return clamps ? rgba8LaneKernel<2, 1, true, false>
                      : rgba8LaneKernel<2, 1, false, false>;
    }
#if defined(FS_CUDA_ALL_VARIANTS)
    if (rows == 4) {
        if (kernels > 1 && separableGradient) return rgba8GradientLaneKernel<4>;
        if (kernels == 1)
            return clamps ? rgba8LaneKernel<4, 1, true, false>
                          : rgba8LaneKernel<4, 1, false, false>;
    }
#endif
    return nullptr;
}

cudaError_t uploadLaneWeights(const PreparedFilter& f, cudaStream_t stream) {
    // Only the 3x3 kernels read them.
    const std::size_t count = f.laneWeights.size();
    if (!f.packedLanes || count != 9u * f.math.kernelCount || count > 18) return cudaSuccess;
    // This file's copy of the float weights too: edge quads take the float column path.
    cudaError_t err = uploadConstantWeights(f, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(c_laneWeights, f.laneWeights.data(), count * sizeof(int),
                                              0, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(c_laneShift, &f.laneForm.shift, sizeof(int), 0, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(c_laneBias, &f.laneForm.bias, sizeof(unsigned), 0, cudaMemcpyHostToDevice,
                                      stream);
    if (err == cudaSuccess && f.laneGradientCentre)
        err = cudaMemcpyToSymbolAsync(c_laneGradientCentre, &*f.laneGradientCentre, sizeof(int), 0,
                                      cudaMemcpyHostToDevice, stream);
    return err;
}

}  // namespace fs::gpu
