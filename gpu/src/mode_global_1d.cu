// Mode "global-1d": the course paper's first CUDA version. A 1-D grid of 1-D
// blocks, one thread per pixel of the image taken as one long array; the
// thread recovers its column and row with a division. Weights in constant
// memory, pixels from global memory, the taps in generic run-time loops.
#include <algorithm>
#include <string>

#include "constant_weights.cuh"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

template <class T, int C> __global__ void linearKernel(KernelGeom g, KernelMath m) {
    const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= static_cast<long long>(g.width) * g.outRows) return;
    const int row = static_cast<int>(p / g.width);
    const int x = static_cast<int>(p - static_cast<long long>(row) * g.width);
    const int y = g.outRow0 + row;
    const int rx = m.kw / 2, ry = m.kh / 2, taps = m.kw * m.kh;
    Px<C> a = splat<C>(0.0f), b = splat<C>(0.0f);
    for (int ky = 0; ky < m.kh; ++ky)
        for (int kx = 0; kx < m.kw; ++kx) {
            const Px<C> v = loadPixel<T, C, false>(g, x + kx - rx, y + ky - ry);
            const int tap = ky * m.kw + kx;
            madd(a, c_weights[tap], v);
            if (m.kernelCount > 1) madd(b, c_weights[taps + tap], v);
        }
    storePixel<T, C>(g, m, x, y, a, b);
}

// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&linearKernel<float, 1>), GeomMathKernel>);

KernelRef linearKernelFor(const PreparedFilter& f) {
    KernelRef kernel = nullptr;
    dispatchPixel(f.inDepth, f.channels, [&](auto tag, auto channels) {
        kernel = linearKernel<decltype(tag), decltype(channels)::value>;
    });
    return kernel;
}

Refusal planLinear(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (want.halo != HaloScheme::Default) return refuseKnob("global-1d", "shared-memory halo (it reads global memory)");
    if (want.radius == RadiusPath::Compiled) return refuseKnob("global-1d", "compiled radius (its loops run to the kernel size)");
    if (pickCount(want.perThreadX, 1, {1}) < 0 || pickCount(want.perThreadY, 1, {1}) < 0)
        return "the global-1d mode computes one pixel per thread";
    if (want.blockY > 1) return "the global-1d mode's blocks are one-dimensional (block Nx1)";
    out.kernel = linearKernelFor(f);
    out.block = dim3(want.blockX > 0 ? static_cast<unsigned>(want.blockX) : 256u, 1);
    const long long pixels = static_cast<long long>(width) * std::max(rows, 1);
    out.grid = dim3(static_cast<unsigned>((pixels + out.block.x - 1) / out.block.x), 1);
    out.sharedBytes = 0;
    out.config = LaunchConfig{static_cast<int>(out.block.x), 1, 1, 1, HaloScheme::Default, RadiusPath::Runtime};
    out.variant = "global-1d, " + std::to_string(out.block.x) + " threads per 1-D block, one pixel each";
    return checkPlan(out);
}

Refusal supportsLinear(const PreparedFilter&) { return {}; }

cudaError_t launchLinear(const LaunchArgs& a, cudaStream_t stream) {
    return planAndLaunch<GeomMathKernel>(global1dMode(), a, stream, a.geom, a.filter->math);
}

std::vector<LaunchConfig> linearCandidates() {
    std::vector<LaunchConfig> out;
    for (int threads : {64, 128, 256, 512, 1024}) out.push_back(LaunchConfig{threads, 1, 1, 1, {}, {}});
    return out;
}

}  // namespace

const ModeImpl& global1dMode() {
    static const ModeImpl mode{
        "global-1d",
        "The first CUDA version of the course paper: the image is one long array and each thread of a 1-D grid of "
        "1-D blocks takes the next pixel, finding its column and row by a division. Every block is full of useful "
        "threads (only the last may run past the end), but neighbouring rows of the kernel's window are a whole "
        "image row apart in the thread numbering, so no block is shaped like the 2-D neighbourhood it reads; "
        "compare its time with constant, the same reads and weights from 2-D blocks.",
        supportsLinear, uploadConstantWeights, planLinear, launchLinear, linearCandidates};
    return mode;
}

}  // namespace fs::gpu
