// Mode "registers": no shared memory and no barriers. Each thread slides a
// window down a column of PY outputs, keeping the partial sums in registers
// (vertical reuse), while the read-only data cache (L1) serves the horizontal
// reuse between neighbouring threads. Threads away from the image edges skip
// fs::borderIndex entirely. Best for small kernels, where the tiled modes
// spend more on staging and barriers than on arithmetic. RGBA8 3x3 has its
// own kernel: two pixels per thread from 8-byte loads.
#include "constant_weights.cuh"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

template <class T, int C, int RX, int RY, int PY, int K>
__global__ void __launch_bounds__(256) registersKernel(KernelGeom g, KernelMath m) {
    const int rx = RX >= 0 ? RX : m.kw / 2;
    const int ry = RY >= 0 ? RY : m.kh / 2;
    const int kw = 2 * rx + 1, kh = 2 * ry + 1, taps = kw * kh;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    const int outEnd = g.outRow0 + g.outRows;
    if (x >= g.width || yFirst >= outEnd) return;
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

template <int PY, int K> cudaError_t launchRgba8Pairs(const LaunchArgs& a, cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid(ceilDiv(a.geom.width, 64), ceilDiv(a.geom.outRows, 8 * PY));
    rgba8PairKernel<PY, K><<<grid, block, 0, stream>>>(a.geom, a.filter->math);
    return cudaGetLastError();
}

template <class T, int C, int RX, int RY, int PY, int K> cudaError_t launchFor(const LaunchArgs& a, cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid(ceilDiv(a.geom.width, 32), ceilDiv(a.geom.outRows, 8 * PY));
    registersKernel<T, C, RX, RY, PY, K><<<grid, block, 0, stream>>>(a.geom, a.filter->math);
    return cudaGetLastError();
}

template <class T, int C, int K> cudaError_t launchForRadius(const LaunchArgs& a, cudaStream_t stream) {
    const KernelMath& m = a.filter->math;
    // Fewer rows per thread when the sums of many channels/kernels fill the registers.
    constexpr int kRows = C * K <= 2 ? 16 : C * K <= 4 ? 8 : 4;
    if constexpr (std::is_same_v<T, std::uint8_t> && C == 4) {
        if (m.kw == 3 && m.kh == 3) return launchRgba8Pairs<(K == 1 ? 4 : 2), K>(a, stream);
    }
    if (m.kw == m.kh) {
        switch (m.kw) {
        case 3: return launchFor<T, C, 1, 1, kRows, K>(a, stream);
        case 5: return launchFor<T, C, 2, 2, kRows, K>(a, stream);
        case 7: return launchFor<T, C, 3, 3, (kRows > 8 ? 8 : kRows), K>(a, stream);
        default: break;
        }
    }
    return launchFor<T, C, -1, -1, 4, K>(a, stream);
}

std::string supportsRegisters(const PreparedFilter&) { return {}; }

cudaError_t launchRegisters(const LaunchArgs& a, cudaStream_t stream) {
    cudaError_t err = cudaSuccess;
    dispatchPixel(a.filter->inDepth, a.filter->channels, [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        err = a.filter->math.kernelCount > 1 ? launchForRadius<T, C, 2>(a, stream) : launchForRadius<T, C, 1>(a, stream);
    });
    return err;
}

}  // namespace

const ModeImpl& registersMode() {
    static const ModeImpl mode{"registers",
                               "Each thread slides down a column of outputs keeping partial sums in registers; "
                               "neighbouring threads share pixels through the L1 cache. No shared memory, no "
                               "barriers: the fastest choice for small kernels.",
                               supportsRegisters, uploadConstantWeights, launchRegisters};
    return mode;
}

}  // namespace fs::gpu
