// Registers-mode variants for u8 images (see registers_kernel.cuh); the
// integer-lane RGBA8 kernels are in registers_lanes_u8.cu.
#include "registers_kernel.cuh"

namespace fs::gpu {
FS_REGISTERS_DEPTH(std::uint8_t)

// Pairs of adjacent pixels: the default for a magnitude in floats, 2 rows.
// One kernel runs as quads (pairs measured slower); built with every variant.
KernelRef rgba8PairVariant(int rows, int kernels) {
#if !defined(FS_CUDA_ALL_VARIANTS)
    return kernels > 1 && rows == 2 ? rgba8PairKernel<2, 2> : nullptr;
#else
    if (kernels > 1)
        return rows == 4 ? rgba8PairKernel<4, 2>
                         : rgba8PairKernel<2, 2>;
    return rows == 4 ? rgba8PairKernel<4, 1>
                     : rgba8PairKernel<2, 1>;
#endif
}

// 16 accumulators per output row and kernel: 2 or 4 rows for one kernel, 2
// for two (4 rows of two kernels, 128 sums, spill). Built by default: one
// kernel at 2 rows (4 rows and magnitudes as quads measured slower).
KernelRef rgba8QuadVariant(int rows, int kernels) {
#if !defined(FS_CUDA_ALL_VARIANTS)
    return kernels == 1 && rows == 2 ? quadKernel<std::uint8_t, 4, 2, 1> : nullptr;
#else
    if (kernels > 1) return rows == 2 ? quadKernel<std::uint8_t, 4, 2, 2> : nullptr;
    switch (rows) {
    case 2: return quadKernel<std::uint8_t, 4, 2, 1>;
    case 4: return quadKernel<std::uint8_t, 4, 4, 1>;
    default: return nullptr;
    }
#endif
}

namespace {
// Gray u8 (pixels x rows) for radius R and K kernels: the defaults only
// (3x3: 4 x 2; single 5x5 to 15x15: 4 x 4; the others measured slower but
// 8 x 2 at 11x11 and 13x13, narrowly, where one shape for every size is kept;
// docs/performance.md), or with
// every variant 4, 8 and (3x3) 16 pixels x 2 or 4 rows.
template <int R, int K> KernelRef gray8Quad(int pixels, int rows) {
    KernelRef kernel = nullptr;
    auto offer = [&](auto n, auto py) {
        constexpr int N = decltype(n)::value, PY = decltype(py)::value;
        constexpr bool isDefault = N == 4 && PY == (R == 1 ? 2 : 4);
        if constexpr (isDefault || (kAllVariants && (N < 16 || R == 1)))
            if (pixels == N && rows == PY)
                kernel = denseQuadKernel<std::uint8_t, 1, N, R, PY, K>;
    };
    using two = std::integral_constant<int, 2>;
    using four = std::integral_constant<int, 4>;
    using eight = std::integral_constant<int, 8>;
    using sixteen = std::integral_constant<int, 16>;
    offer(four{}, two{}), offer(four{}, four{}), offer(eight{}, two{}), offer(eight{}, four{});
    offer(sixteen{}, two{}), offer(sixteen{}, four{});
    return kernel;
}
}  // namespace

// Gray u8 3x3 (one kernel or a magnitude pair) and single 5x5 to 15x15 kernels.
KernelRef gray8QuadVariant(int radius, int pixels, int rows, int kernels) {
    switch (radius) {
    case 1: return kernels > 1 ? gray8Quad<1, 2>(pixels, rows) : gray8Quad<1, 1>(pixels, rows);
    case 2: return kernels == 1 ? gray8Quad<2, 1>(pixels, rows) : nullptr;
    case 3: return kernels == 1 ? gray8Quad<3, 1>(pixels, rows) : nullptr;
    case 4: return kernels == 1 ? gray8Quad<4, 1>(pixels, rows) : nullptr;
    case 5: return kernels == 1 ? gray8Quad<5, 1>(pixels, rows) : nullptr;
    case 6: return kernels == 1 ? gray8Quad<6, 1>(pixels, rows) : nullptr;
    case 7: return kernels == 1 ? gray8Quad<7, 1>(pixels, rows) : nullptr;
    default: return nullptr;
    }
}

// BGR u8 single kernels 3x3 to 11x11, 4 adjacent pixels: the default rows only
// (bgr8QuadRows), or with every variant 2, 4 and 8.
KernelRef bgr8QuadVariant(int radius, int rows) {
    KernelRef kernel = nullptr;
    auto offer = [&](auto r, auto py) {
        constexpr int R = decltype(r)::value, PY = decltype(py)::value;
        if constexpr (bgr8QuadRowsBuilt(R, PY))
            if (radius == R && rows == PY)
                kernel = denseQuadKernel<std::uint8_t, 3, 4, R, PY, 1>;
    };
    auto eachRows = [&](auto r) {
        offer(r, std::integral_constant<int, 2>{});
        offer(r, std::integral_constant<int, 4>{});
        offer(r, std::integral_constant<int, 8>{});
    };
    eachRows(std::integral_constant<int, 1>{});
    eachRows(std::integral_constant<int, 2>{});
    eachRows(std::integral_constant<int, 3>{});
    eachRows(std::integral_constant<int, 4>{});
    eachRows(std::integral_constant<int, 5>{});
    return kernel;
}

// RGBA8 single 5x5 to 9x9 kernels: the default pixels and rows only
// (rgba8DenseQuadPixels, rgba8DenseQuadRows), or with every variant 2 or 4
// pixels x 2, 4 or 8 rows.
KernelRef rgba8DenseQuadVariant(int radius, int pixels, int rows) {
    KernelRef kernel = nullptr;
    auto offer = [&](auto r, auto n, auto py) {
        constexpr int R = decltype(r)::value, N = decltype(n)::value, PY = decltype(py)::value;
        if constexpr (rgba8DenseQuadBuilt(R, N, PY))
            if (radius == R && pixels == N && rows == PY)
                kernel = denseQuadKernel<std::uint8_t, 4, N, R, PY, 1>;
    };
    auto eachShape = [&](auto r) {
        using two = std::integral_constant<int, 2>;
        using four = std::integral_constant<int, 4>;
        using eight = std::integral_constant<int, 8>;
        offer(r, two{}, two{}), offer(r, two{}, four{}), offer(r, two{}, eight{});
        offer(r, four{}, two{}), offer(r, four{}, four{}), offer(r, four{}, eight{});
    };
    eachShape(std::integral_constant<int, 2>{});
    eachShape(std::integral_constant<int, 3>{});
    eachShape(std::integral_constant<int, 4>{});
    return kernel;
}

}  // namespace fs::gpu
