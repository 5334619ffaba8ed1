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

// Each thread computes perThreadX x perThreadY outputs, strided by the block
// size so a warp's loads stay coalesced (the CUDA Samples' "result steps").
template <class T, int C, class Source, class Weights>
__global__ void directKernel(KernelGeom g, KernelMath m, Source src, Weights w, int perThreadX, int perThreadY) {
    const int x0 = blockIdx.x * blockDim.x * perThreadX + threadIdx.x;
    const int row0 = blockIdx.y * blockDim.y * perThreadY + threadIdx.y;
    const int rx = m.kw / 2, ry = m.kh / 2, taps = m.kw * m.kh;
#pragma unroll 1
    for (int j = 0; j < perThreadY; ++j) {
        const int row = row0 + j * blockDim.y;
        if (row >= g.outRows) return;
        const int y = g.outRow0 + row;
#pragma unroll 1
        for (int i = 0; i < perThreadX; ++i) {
            const int x = x0 + i * blockDim.x;
            if (x >= g.width) break;
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
    }
}

// The kernel variant for the input's depth and channel count.
// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
template <class Source, class Weights>
inline constexpr bool kDirectFamily = std::is_same_v<decltype(&directKernel<float, 1, Source, Weights>), DirectKernel<Source, Weights>>;

template <class Source, class Weights> KernelRef directKernelFor(const PreparedFilter& f) {
    static_assert(kDirectFamily<Source, Weights>);
    KernelRef kernel = nullptr;
    dispatchPixel(f.inDepth, f.channels, [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        kernel = directKernel<T, C, Source, Weights>;
    });
    return kernel;
}

// The launch knobs of the one-thread-per-pixel modes: any block shape and
// 1 to 8 outputs per thread each way (the course paper's k x k sweep runs
// k = 1..6); no halo, run-time radius only.
inline Refusal planDirect(const char* mode, KernelRef kernel, const LaunchConfig& want, int width, int rows,
                          LaunchPlan& out) {
    if (want.halo != HaloScheme::Default) return refuseKnob(mode, "shared-memory halo to load (only shared has)");
    if (want.radius == RadiusPath::Compiled)
        return refuseKnob(mode, "compiled radius: it reads the weights at run-time indices (shared, registers and "
                                "separable have compiled radii)");
    const int px = pickCount(want.perThreadX, 1, {1, 2, 3, 4, 5, 6, 7, 8});
    const int py = pickCount(want.perThreadY, 1, {1, 2, 3, 4, 5, 6, 7, 8});
    if (px < 0 || py < 0) return std::string("the ") + mode + " mode computes 1 to 8 outputs per thread each way";
    out.kernel = kernel;
    out.block = pickBlock(want, dim3(32, 8));
    out.grid = gridFor(width, rows, out.block, px, py);
    out.sharedBytes = 0;
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), px, py,
                              HaloScheme::Default, RadiusPath::Runtime};
    out.variant = std::string(mode) + ", run-time radius, " + std::to_string(px) + "x" + std::to_string(py) +
                  " outputs per thread";
    return checkPlan(out);
}

// What the autotuner times for the one-thread-per-pixel modes.
inline std::vector<LaunchConfig> directCandidates() {
    return candidateGrid({{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 4}, {4, 1}});
}

template <class Source, class Weights>
cudaError_t launchDirect(const ModeImpl& mode, const LaunchArgs& a, cudaStream_t stream, Source src, Weights w) {
    LaunchPlan plan;
    if (!mode.plan(*a.filter, a.config, a.geom.width, a.geom.outRows, plan).ok()) return cudaErrorInvalidConfiguration;
    plan.kernel = directKernelFor<Source, Weights>(*a.filter);  // the source the border needs
    return launchPlanned<DirectKernel<Source, Weights>>(plan, stream, a.geom, a.filter->math, src, w, plan.config.perThreadX,
                                                         plan.config.perThreadY);
}

}  // namespace fs::gpu
