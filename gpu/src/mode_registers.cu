// Mode "registers": no shared memory and no barriers. Each thread slides a
// window down a column of PY outputs, keeping the partial sums in registers
// (vertical reuse), while the read-only data cache (L1) serves the horizontal
// reuse between neighbouring threads. Threads away from the image edges skip
// fs::borderIndex entirely. Best for small kernels, where the tiled modes
// spend more on staging and barriers than on arithmetic. RGBA8 3x3 has its
// own kernel: two pixels per thread from 8-byte loads.
#include <algorithm>
#include <string>

#include "constant_weights.cuh"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

// One column of PY outputs (see the kernel below).
template <class T, int C, int RX, int RY, int PY, int K>
__device__ __forceinline__ void registersColumn(const KernelGeom& g, const KernelMath& m, int x, int yFirst) {
    const int rx = RX >= 0 ? RX : m.kw / 2;
    const int ry = RY >= 0 ? RY : m.kh / 2;
    const int kw = 2 * rx + 1, kh = 2 * ry + 1, taps = kw * kh;
    const int outEnd = g.outRow0 + g.outRows;
    const int rowsNeeded = min(PY, outEnd - yFirst) + 2 * ry;  // never read past this launch's rows + halo
    const bool interior = x >= rx && x + rx < g.width && yFirst >= ry && yFirst + rowsNeeded - ry <= g.imageHeight;

    Px<C> acc[K][PY];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[k][j] = splat<C>(0.0f);
    if (RX >= 0 && RY >= 0 && interior && rowsNeeded == PY + kh - 1) {
        // The common case, free of conditions, so the compiler can issue the
        // loads of many rows before the first multiply-add needs them.
        const T* base = reinterpret_cast<const T*>(sourceRow(g, yFirst - ry)) + (x - rx) * C;
        // Rows inside the image are consecutive in the source buffer, also in
        // a wrap-border strip (it wraps only between image rows H-1 and 0).
#pragma unroll
        for (int i = 0; i < PY + kh - 1; ++i) {
            const T* row = reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(base) + i * g.srcPitch);
#pragma unroll
            for (int kx = 0; kx < kw; ++kx) {
                const Px<C> v = loadChannels<T, C, true>(row + kx * C);
#pragma unroll
                for (int j = 0; j < PY; ++j) {
                    const int ky = i - j;
                    if (ky < 0 || ky >= kh) continue;
#pragma unroll
                    for (int k = 0; k < K; ++k) madd(acc[k][j], c_weights[k * taps + ky * kw + kx], v);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < PY; ++j) storePixel<T, C>(g, m, x, yFirst + j, acc[0][j], acc[K - 1][j]);
        return;
    }
#pragma unroll
    for (int i = 0; i < PY + kh - 1; ++i) {
        if (i >= rowsNeeded) break;
        const int y = yFirst - ry + i;
        const T* row = interior ? reinterpret_cast<const T*>(sourceRow(g, y)) + (x - rx) * C : nullptr;
#pragma unroll
        for (int kx = 0; kx < kw; ++kx) {
            const Px<C> v = interior ? loadChannels<T, C, true>(row + kx * C) : loadPixel<T, C>(g, x + kx - rx, y);
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= kh) continue;
#pragma unroll
                for (int k = 0; k < K; ++k) madd(acc[k][j], c_weights[k * taps + ky * kw + kx], v);
            }
        }
    }
#pragma unroll
    for (int j = 0; j < PY; ++j)
        if (yFirst + j < outEnd) storePixel<T, C>(g, m, x, yFirst + j, acc[0][j], acc[K - 1][j]);
}

// perThreadX columns strided by the block width, PY consecutive rows each.
template <class T, int C, int RX, int RY, int PY, int K>
__global__ void __launch_bounds__(256) registersKernel(KernelGeom g, KernelMath m, int perThreadX) {
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    if (yFirst >= g.outRow0 + g.outRows) return;
    const int x0 = blockIdx.x * blockDim.x * perThreadX + threadIdx.x;
#pragma unroll 1
    for (int i = 0; i < perThreadX; ++i) {
        const int x = x0 + i * blockDim.x;
        if (x >= g.width) return;
        registersColumn<T, C, RX, RY, PY, K>(g, m, x, yFirst);
    }
}

// RGBA8 3x3: each thread computes two neighbouring pixels from one 8-byte load
// of the pair and two 4-byte loads of its neighbours per row, half the load
// instructions (and converted pixels) of one pixel per thread.
__device__ __forceinline__ Px<4> unpackRgba8(unsigned w) {
    Px<4> p;
#pragma unroll
    for (int i = 0; i < 4; ++i) p.c[i] = static_cast<float>((w >> (8 * i)) & 0xFFu);
    return p;
}

template <int PY, int K>
__global__ void __launch_bounds__(256) rgba8PairKernel(KernelGeom g, KernelMath m) {
    using T = std::uint8_t;
    const int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    const int outEnd = g.outRow0 + g.outRows;
    if (x >= g.width || yFirst >= outEnd) return;
    const int rowsNeeded = min(PY, outEnd - yFirst) + 2;  // never read past this launch's rows + halo
    const bool aligned = ((g.srcPitch | reinterpret_cast<std::uintptr_t>(g.src)) & 7u) == 0;
    const bool interior = aligned && x >= 1 && x + 2 < g.width && yFirst >= 1 &&
                          yFirst + rowsNeeded - 1 <= g.imageHeight && rowsNeeded == PY + 2;
    if (interior) {
        Px<4> acc[K][2][PY];
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int o = 0; o < 2; ++o)
#pragma unroll
                for (int j = 0; j < PY; ++j) acc[k][o][j] = splat<4>(0.0f);
        // Rows inside the image are consecutive in the source buffer, also in a wrap strip.
        const unsigned char* base = sourceRow(g, yFirst - 1) + (x - 1) * 4;
#pragma unroll
        for (int i = 0; i < PY + 2; ++i) {
            const unsigned char* row = base + i * g.srcPitch;
            const unsigned left = __ldg(reinterpret_cast<const unsigned*>(row));
            const uint2 pair = __ldg(reinterpret_cast<const uint2*>(row + 4));
            const unsigned right = __ldg(reinterpret_cast<const unsigned*>(row + 12));
            const Px<4> p[4] = {unpackRgba8(left), unpackRgba8(pair.x), unpackRgba8(pair.y), unpackRgba8(right)};
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= 3) continue;
#pragma unroll
                for (int kx = 0; kx < 3; ++kx)
#pragma unroll
                    for (int k = 0; k < K; ++k) {
                        const float w = c_weights[k * 9 + ky * 3 + kx];
                        madd(acc[k][0][j], w, p[kx]);
                        madd(acc[k][1][j], w, p[kx + 1]);
                    }
            }
        }
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            storePixel<T, 4>(g, m, x, yFirst + j, acc[0][0][j], acc[K - 1][0][j]);
            storePixel<T, 4>(g, m, x + 1, yFirst + j, acc[0][1][j], acc[K - 1][1][j]);
        }
        return;
    }
    // Near the edges: each of the two pixels through fs::borderIndex.
    for (int o = 0; o < 2 && x + o < g.width; ++o) {
        Px<4> acc[K][PY];
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int j = 0; j < PY; ++j) acc[k][j] = splat<4>(0.0f);
#pragma unroll
        for (int i = 0; i < PY + 2; ++i) {
            if (i >= rowsNeeded) break;
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) {
                const Px<4> v = loadPixel<T, 4>(g, x + o + kx - 1, yFirst - 1 + i);
#pragma unroll
                for (int j = 0; j < PY; ++j) {
                    const int ky = i - j;
                    if (ky < 0 || ky >= 3) continue;
#pragma unroll
                    for (int k = 0; k < K; ++k) madd(acc[k][j], c_weights[k * 9 + ky * 3 + kx], v);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < PY; ++j)
            if (yFirst + j < outEnd) storePixel<T, 4>(g, m, x + o, yFirst + j, acc[0][j], acc[K - 1][j]);
    }
}

// Rows per thread: the compiled-radius kernels are built for 2, 4, 8 and 16
// (16 only when C x K <= 2: more accumulators would spill), the run-time
// radius kernel for 4. Defaults measured on an H100.
int defaultRegisterRows(int channels, int kernels, int radius) {
    const int ck = channels * kernels;
    const int rows = ck <= 2 ? 16 : ck <= 4 ? 8 : 4;
    return radius == 3 ? std::min(rows, 8) : radius < 0 ? 4 : rows;
}

template <class T, int C, int K> const void* registersVariant(int radius, int rows) {
    auto pick = [&](auto r) -> const void* {
        constexpr int R = decltype(r)::value;
        switch (rows) {
        case 2: return reinterpret_cast<const void*>(registersKernel<T, C, R, R, 2, K>);
        case 4: return reinterpret_cast<const void*>(registersKernel<T, C, R, R, 4, K>);
        case 8: return reinterpret_cast<const void*>(registersKernel<T, C, R, R, 8, K>);
        default:
            if constexpr (C * K <= 2) return reinterpret_cast<const void*>(registersKernel<T, C, R, R, 16, K>);
            return nullptr;
        }
    };
    switch (radius) {
    case 1: return pick(std::integral_constant<int, 1>{});
    case 2: return pick(std::integral_constant<int, 2>{});
    case 3: return pick(std::integral_constant<int, 3>{});
    default: return reinterpret_cast<const void*>(registersKernel<T, C, -1, -1, 4, K>);
    }
}

const void* rgba8PairVariant(int rows, int kernels) {
    if (kernels > 1)
        return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 2>)
                         : reinterpret_cast<const void*>(rgba8PairKernel<2, 2>);
    return rows == 4 ? reinterpret_cast<const void*>(rgba8PairKernel<4, 1>)
                     : reinterpret_cast<const void*>(rgba8PairKernel<2, 1>);
}

std::string planRegisters(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (want.halo != HaloScheme::Default) return refuseKnob("registers", "shared-memory halo to load (only shared has)");
    const KernelMath& m = f.math;
    const int C = f.channels, K = m.kernelCount;
    const bool compilable = m.kw == m.kh && m.kw >= 3 && m.kw <= 7;
    if (want.radius == RadiusPath::Compiled && !compilable)
        return "the registers mode compiles square kernels of radius 1 to 3 (3x3 to 7x7); this one needs the "
               "run-time radius";
    const int radius = compilable && want.radius != RadiusPath::Runtime ? m.kw / 2 : -1;
    const bool rgba8 = f.inDepth == Depth::U8 && C == 4 && radius == 1;
    const int px = pickCount(want.perThreadX, rgba8 ? 2 : 1, {1, 2, 4});
    if (px < 0) return "the registers mode computes 1, 2 or 4 columns per thread";
    const bool pairs = rgba8 && px == 2;  // adjacent pairs from 8-byte loads
    int py = 0;
    if (pairs) {
        py = pickCount(want.perThreadY, K == 1 ? 4 : 2, {2, 4});
        if (py < 0) return "the RGBA8 3x3 pair kernel computes 2 or 4 rows per thread";
    } else if (radius < 0) {
        py = pickCount(want.perThreadY, 4, {4});
        if (py < 0) return "the run-time-radius registers kernel computes 4 rows per thread";
    } else {
        py = pickCount(want.perThreadY, defaultRegisterRows(C, K, radius), {2, 4, 8, 16});
        if (py < 0) return "the registers mode computes 2, 4, 8 or 16 rows per thread";
        if (py == 16 && C * K > 2)
            return "16 rows per thread need " + std::to_string(16 * C * K) +
                   " accumulator registers (C x K = " + std::to_string(C * K) + "): built for gray single filters only";
    }
    dispatchPixel(f.inDepth, C, [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int CC = decltype(channels)::value;
        out.kernel = pairs ? rgba8PairVariant(py, K) : K > 1 ? registersVariant<T, CC, 2>(radius, py)
                                                             : registersVariant<T, CC, 1>(radius, py);
    });
    out.block = pickBlock(want, dim3(32, 8));
    out.grid = gridFor(width, rows, out.block, px, py);
    out.sharedBytes = 0;
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), px, py,
                              HaloScheme::Default, radius > 0 ? RadiusPath::Compiled : RadiusPath::Runtime};
    out.variant = std::string("registers, ") +
                  (radius > 0 ? "compiled radius " + std::to_string(radius) : std::string("run-time radius")) + ", " +
                  std::to_string(px) + "x" + std::to_string(py) + " outputs per thread" +
                  (pairs ? " (adjacent RGBA8 pairs, 8-byte loads)" : "");
    return checkPlan(out);
}

std::string supportsRegisters(const PreparedFilter&) { return {}; }

cudaError_t launchRegisters(const LaunchArgs& a, cudaStream_t stream) {
    LaunchPlan plan;
    if (!planRegisters(*a.filter, a.config, a.geom.width, a.geom.outRows, plan).empty())
        return cudaErrorInvalidConfiguration;
    const bool pairs = a.filter->inDepth == Depth::U8 && a.filter->channels == 4 && plan.config.perThreadX == 2 &&
                       plan.config.radius == RadiusPath::Compiled && a.filter->math.kw == 3;
    if (pairs) return launchPlanned(plan, stream, a.geom, a.filter->math);
    return launchPlanned(plan, stream, a.geom, a.filter->math, plan.config.perThreadX);
}

}  // namespace

const ModeImpl& registersMode() {
    static const ModeImpl mode{"registers",
                               "Each thread slides down a column of outputs keeping partial sums in registers; "
                               "neighbouring threads share pixels through the L1 cache. No shared memory, no "
                               "barriers: the fastest choice for small kernels.",
                               supportsRegisters, uploadConstantWeights, planRegisters, launchRegisters};
    return mode;
}

}  // namespace fs::gpu
