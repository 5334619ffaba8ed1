// Registers-mode variants for f32 images (see registers_kernel.cuh).
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(float)

// Gray f32 3x3, 4 adjacent pixels per thread: 2 rows (4 and 8 measured
// slower; built with every variant).
const void* grayF32QuadVariant(int rows, int kernels) {
    auto pick = [&](auto k) -> const void* {
        constexpr int K = decltype(k)::value;
        if constexpr (!kAllVariants) {
            return rows == 2 ? reinterpret_cast<const void*>(quadKernel<float, 1, 2, K>) : nullptr;
        } else {
            switch (rows) {
            case 2: return reinterpret_cast<const void*>(quadKernel<float, 1, 2, K>);
            case 4: return reinterpret_cast<const void*>(quadKernel<float, 1, 4, K>);
            case 8: return reinterpret_cast<const void*>(quadKernel<float, 1, 8, K>);
            default: return nullptr;
            }
        }
    };
    return kernels > 1 ? pick(std::integral_constant<int, 2>{}) : pick(std::integral_constant<int, 1>{});
}
}  // namespace fs::gpu
