#pragma once
// One thread per output pixel, every tap fetched through a Source policy and
// weighted through a Weights policy. The global, constant and texture modes
// are this one kernel with different policies.
#include "device_common.cuh"

namespace fs::gpu {

struct GlobalWeights {
    const float* w;
    __device__ __forceinline__ float operator()(int i) const { return w[i]; }
};

// Plain global loads (the textbook baseline).
struct GlobalSource {
    template <class T, int C> __device__ __forceinline__ Px<C> load(const KernelGeom& g, int x, int y) const {
        return loadPixel<T, C, false>(g, x, y);
    }
};

// Loads through the read-only data cache.
struct ReadOnlySource {
    template <class T, int C> __device__ __forceinline__ Px<C> load(const KernelGeom& g, int x, int y) const {
        return loadPixel<T, C, true>(g, x, y);
    }
};

template <class T, int C, class Source, class Weights>
__global__ void directKernel(KernelGeom g, KernelMath m, Source src, Weights w) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.width || row >= g.outRows) return;
    const int y = g.outRow0 + row;
    const int rx = m.kw / 2, ry = m.kh / 2, taps = m.kw * m.kh;
    Px<C> acc[kMaxKernels] = {splat<C>(0.0f), splat<C>(0.0f)};
    for (int ky = 0; ky < m.kh; ++ky) {
        for (int kx = 0; kx < m.kw; ++kx) {
            const Px<C> v = src.template load<T, C>(g, x + kx - rx, y + ky - ry);
            const int tap = ky * m.kw + kx;
            madd(acc[0], w(tap), v);
            if (m.kernelCount > 1) madd(acc[1], w(taps + tap), v);
        }
    }
    storePixel<T, C>(g, m, x, y, acc[0], acc[1]);
}

// Runs directKernel for the input's depth and channel count.
template <class Source, class Weights>
cudaError_t launchDirect(const LaunchArgs& a, cudaStream_t stream, Source src, Weights w) {
    const dim3 block(32, 8);
    const dim3 grid(ceilDiv(a.geom.width, 32), ceilDiv(a.geom.outRows, 8));
    const KernelMath& m = a.filter->math;
    auto go = [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        directKernel<T, C><<<grid, block, 0, stream>>>(a.geom, m, src, w);
    };
    dispatchPixel(a.filter->inDepth, a.filter->channels, go);
    return cudaGetLastError();
}

}  // namespace fs::gpu
