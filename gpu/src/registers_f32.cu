// Registers-mode variants for f32 images (see registers_kernel.cuh).
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(float)

// Gray f32 3x3, 4 adjacent pixels per thread: 2 rows (4 and 8 measured
// slower; built with every variant).
KernelRef grayF32QuadVariant(int rows, int kernels) {
    auto pick = [&](auto k) -> KernelRef {
        constexpr int K = decltype(k)::value;
        if constexpr (!kAllVariants) {
            return rows == 2 ? quadKernel<float, 1, 2, K> : nullptr;
        } else {
            switch (rows) {
            case 2: return quadKernel<float, 1, 2, K>;
            case 4: return quadKernel<float, 1, 4, K>;
            case 8: return quadKernel<float, 1, 8, K>;
            default: return nullptr;
            }
        }
    };
    return kernels > 1 ? pick(std::integral_constant<int, 2>{}) : pick(std::integral_constant<int, 1>{});
}

// Gray f32 single 5x5 to 15x15 kernels, 4 adjacent pixels per thread from
// 16-byte loads: grayF32WideRows(radius) rows (both 2 and 4 with every variant).
KernelRef grayF32WideVariant(int radius, int rows) {
    auto pick = [&](auto r) -> KernelRef {
        constexpr int R = decltype(r)::value;
        if constexpr (kAllVariants || grayF32WideRows(R) == 2)
            if (rows == 2) return denseQuadKernel<float, 1, 4, R, 2, 1>;
        if constexpr (kAllVariants || grayF32WideRows(R) == 4)
            if (rows == 4) return denseQuadKernel<float, 1, 4, R, 4, 1>;
        return nullptr;
    };
    switch (radius) {
    case 2: return pick(std::integral_constant<int, 2>{});
    case 3: return pick(std::integral_constant<int, 3>{});
    case 4: return pick(std::integral_constant<int, 4>{});
    case 5: return pick(std::integral_constant<int, 5>{});
    case 6: return pick(std::integral_constant<int, 6>{});
    case 7: return pick(std::integral_constant<int, 7>{});
    default: return nullptr;
    }
}
}  // namespace fs::gpu
