// Registers-mode variants for u8 images (see registers_kernel.cuh); the
// integer-lane RGBA8 kernels are in registers_lanes_u8.cu.
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(std::uint8_t)

// Pairs of adjacent pixels: the default for a magnitude in floats, 2 rows.
// One kernel runs as quads (pairs measured slower); built with every variant.
const void* rgba8PairVariant(int rows, int kernels) {
#if !defined(FS_CUDA_ALL_VARIANTS)
    return kernels > 1 && rows == 2 ? reinterpret_cast<const void*>(rgba8PairKernel<2, 2>) : nullptr;
#else
    if (kernels > 1)
        return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 2>)
                         : reinterpret_cast<const void*>(rgba8PairKernel<2, 2>);
    return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 1>)
                     : reinterpret_cast<const void*>(rgba8PairKernel<2, 1>);
#endif
}

// 16 accumulators per output row and kernel: 2 or 4 rows for one kernel, 2
// for two (4 rows of two kernels, 128 sums, spill). Built by default: one
// kernel at 2 rows (4 rows and magnitudes as quads measured slower).
const void* rgba8QuadVariant(int rows, int kernels) {
#if !defined(FS_CUDA_ALL_VARIANTS)
    return kernels == 1 && rows == 2 ? reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 2, 1>) : nullptr;
#else
    if (kernels > 1) return rows == 2 ? reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 2, 2>) : nullptr;
    switch (rows) {
    case 2: return reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 2, 1>);
    case 4: return reinterpret_cast<const void*>(quadKernel<std::uint8_t, 4, 4, 1>);
    default: return nullptr;
    }
#endif
}

// Gray u8 3x3, 4 adjacent pixels per thread, 2 rows (4 rows and 16 pixels
// measured slower; built with every variant). Single 5x5 and 7x7 kernels: 4
// pixels, 4 rows (2 rows measured 5-9 % slower on the H100).
const void* gray8QuadVariant(int radius, int pixels, int rows, int kernels) {
    if (radius == 2 || radius == 3) {
        if (kernels != 1 || pixels != 4 || rows != 4) return nullptr;
        return radius == 2 ? reinterpret_cast<const void*>(gray8QuadKernel<4, 2, 4, 1>)
                           : reinterpret_cast<const void*>(gray8QuadKernel<4, 3, 4, 1>);
    }
    auto pick = [&](auto k) -> const void* {
        constexpr int K = decltype(k)::value;
        if (pixels == 4 && rows == 2) return reinterpret_cast<const void*>(gray8QuadKernel<4, 1, 2, K>);
        if constexpr (kAllVariants) {
            if (pixels == 4 && rows == 4) return reinterpret_cast<const void*>(gray8QuadKernel<4, 1, 4, K>);
            if (pixels == 16 && rows == 2) return reinterpret_cast<const void*>(gray8QuadKernel<16, 1, 2, K>);
            if (pixels == 16 && rows == 4) return reinterpret_cast<const void*>(gray8QuadKernel<16, 1, 4, K>);
        }
        return nullptr;
    };
    return kernels > 1 ? pick(std::integral_constant<int, 2>{}) : pick(std::integral_constant<int, 1>{});
}

}  // namespace fs::gpu
