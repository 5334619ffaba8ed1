// Registers-mode variants for u8 images (see registers_kernel.cuh).
#include "fs/lane_math.hpp"
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(std::uint8_t)

const void* rgba8PairVariant(int rows, int kernels) {
    if (kernels > 1)
        return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 2>)
                         : reinterpret_cast<const void*>(rgba8PairKernel<2, 2>);
    return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 1>)
                     : reinterpret_cast<const void*>(rgba8PairKernel<2, 1>);
}

// 16 accumulators per output row and kernel: 2 or 4 rows for one kernel, 2
// for two (4 rows of two kernels, 128 sums, spill).
const void* rgba8QuadVariant(int rows, int kernels) {
    if (kernels > 1) return rows == 2 ? reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 2, 2>) : nullptr;
    switch (rows) {
    case 2: return reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 2, 1>);
    case 4: return reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 4, 1>);
    default: return nullptr;
    }
}

// ---- RGBA8 3x3 in exact integer lanes (PreparedFilter::packedLanes) -------
namespace {

__constant__ int c_laneWeights[9];
__constant__ int c_laneShift;

// Like quadKernel<u8, 4, PY, 1> (4 adjacent pixels, one 16-byte load per
// input row and two 4-byte neighbours), but each pixel is two words of two
// 16-bit lanes (fs/lane_math.hpp) and every tap is one integer multiply-add
// per word: 18 per pixel instead of 36 FMAs, no byte-to-float conversion, no
// clamps (the sums cannot exceed 255 * 2^shift). Edge threads and unaligned
// rows take the float column path, which is exact for these weights too.
// H100, 8K: 0.111 ms (2 rows) against 0.144 ms for the float kernel.
template <int PY>
__global__ void __launch_bounds__(256) rgba8LaneKernel(KernelGeom g, KernelMath m, int) {
    int x, yFirst;
    if (!quadInterior<std::uint8_t, 4, PY, 1>(g, m,
                                              g.srcPitch | g.dstPitch | reinterpret_cast<std::uintptr_t>(g.src) |
                                                  reinterpret_cast<std::uintptr_t>(g.dst),
                                              x, yFirst))
        return;
    unsigned even[4][PY], odd[4][PY];
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
        for (int j = 0; j < PY; ++j) even[o][j] = odd[o][j] = 0u;
    // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
    const unsigned char* base = sourceRow(g, yFirst - 1) + x * 4;
#pragma unroll
    for (int i = 0; i < PY + 2; ++i) {
        unsigned px[6];
        loadQuadRow(base + i * g.srcPitch, px);
        unsigned pe[6], po[6];
#pragma unroll
        for (int p = 0; p < 6; ++p) pe[p] = lanes::evenChannels(px[p]), po[p] = lanes::oddChannels(px[p]);
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            const int ky = i - j;
            if (ky < 0 || ky >= 3) continue;
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) {
                const unsigned w = static_cast<unsigned>(c_laneWeights[ky * 3 + kx]);
#pragma unroll
                for (int o = 0; o < 4; ++o) even[o][j] += w * pe[o + kx], odd[o][j] += w * po[o + kx];
            }
        }
    }
    const lanes::Rounding rounding = lanes::rounding(c_laneShift);
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        unsigned word[4];
#pragma unroll
        for (int o = 0; o < 4; ++o)
            word[o] = lanes::pack(lanes::roundLanes(even[o][j], rounding), lanes::roundLanes(odd[o][j], rounding));
        unsigned char* out = g.dst + static_cast<std::size_t>(yFirst + j - g.outRow0) * g.dstPitch + x * 4;
        *reinterpret_cast<uint4*>(out) = make_uint4(word[0], word[1], word[2], word[3]);
    }
}

}  // namespace

const void* rgba8LaneVariant(int rows) {
    switch (rows) {
    case 2: return reinterpret_cast<const void*>(rgba8LaneKernel<2>);
    case 4: return reinterpret_cast<const void*>(rgba8LaneKernel<4>);
    default: return nullptr;
    }
}

cudaError_t uploadLaneWeights(const PreparedFilter& f, cudaStream_t stream) {
    if (!f.packedLanes || f.laneWeights.size() != 9) return cudaSuccess;  // only the 3x3 kernel reads them
    cudaError_t err = cudaMemcpyToSymbolAsync(c_laneWeights, f.laneWeights.data(), 9 * sizeof(int), 0,
                                              cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(c_laneShift, &f.laneShift, sizeof(int), 0, cudaMemcpyHostToDevice, stream);
    return err;
}

}  // namespace fs::gpu
