// Mode "shared-textbook": the textbook shared-memory tile (the thesis's
// second loading pattern, the course paper's shared version). A block of
// Bw x Bh threads loads one window sample each into shared memory, in the
// image's own type (bytes for u8, as the course paper staged them), one
// channel per pass with a barrier before and after; only the inner
// (Bw - kw + 1) x (Bh - kh + 1) threads then compute an output, the halo
// threads sit idle. Weights in constant memory, generic run-time loops.
#include <string>
#include <utility>

#include "constant_weights.cuh"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

template <class T, int C> __global__ void textbookTileKernel(KernelGeom g, KernelMath m) {
    extern __shared__ __align__(16) unsigned char textbookTile[];
    T* tile = reinterpret_cast<T*>(textbookTile);
    const int rx = m.kw / 2, ry = m.kh / 2, taps = m.kw * m.kh;
    const int tx = threadIdx.x, ty = threadIdx.y, bw = blockDim.x;
    const int tileW = bw - (m.kw - 1), tileH = static_cast<int>(blockDim.y) - (m.kh - 1);
    // This thread's window sample; an inner thread's output is that same pixel.
    const int x = static_cast<int>(blockIdx.x) * tileW - rx + tx;
    const int y = g.outRow0 + static_cast<int>(blockIdx.y) * tileH - ry + ty;
    const bool inner = tx >= rx && tx < rx + tileW && ty >= ry && ty < ry + tileH;
    const bool stores = inner && x < g.width && y < g.outRow0 + g.outRows;
    // A strip's buffer ends ry rows below its last output row.
    const bool loads = x < g.width + rx && y < g.outRow0 + g.outRows + ry;
    const bool constantBorder = g.border == BorderMode::Constant;
    Px<C> a = splat<C>(0.0f), b = splat<C>(0.0f);
    for (int c = 0; c < C; ++c) {
        T v = T(0);
        if (loads) {
            const int ix = borderIndex(x, g.width, g.border), iy = borderIndex(y, g.imageHeight, g.border);
            if ((ix | iy) >= 0) v = reinterpret_cast<const T*>(sourceRow(g, iy))[ix * C + c];
        }
        tile[ty * bw + tx] = v;
        __syncthreads();
        if (stores) {
            float sa = 0.0f, sb = 0.0f;
            for (int ky = 0; ky < m.kh; ++ky)
                for (int kx = 0; kx < m.kw; ++kx) {
                    const int px = x + kx - rx, py = y + ky - ry;
                    // A constant border's value is a float, which a byte tile cannot hold.
                    const bool outside = static_cast<unsigned>(px) >= static_cast<unsigned>(g.width) ||
                                         static_cast<unsigned>(py) >= static_cast<unsigned>(g.imageHeight);
                    const float s = constantBorder && outside
                                        ? g.borderValue
                                        : static_cast<float>(tile[(ty + ky - ry) * bw + tx + kx - rx]);
                    const int tap = ky * m.kw + kx;
                    sa = fmaf(c_weights[tap], s, sa);
                    if (m.kernelCount > 1) sb = fmaf(c_weights[taps + tap], s, sb);
                }
            a.c[c] = sa;
            b.c[c] = sb;
        }
        __syncthreads();  // the next channel overwrites the tile
    }
    if (stores) storePixel<T, C>(g, m, x, y, a, b);
}

// Each kernel template has its family's parameters (launch.hpp), which its launch is checked against.
static_assert(std::is_same_v<decltype(&textbookTileKernel<float, 1>), GeomMathKernel>);

KernelRef textbookKernelFor(const PreparedFilter& f) {
    KernelRef kernel = nullptr;
    dispatchPixel(f.inDepth, f.channels, [&](auto tag, auto channels) {
        kernel = textbookTileKernel<decltype(tag), decltype(channels)::value>;
    });
    return kernel;
}

Refusal planTextbook(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (want.halo != HaloScheme::Default)
        return refuseKnob("shared-textbook", "choice of halo loading (its halo threads load it, then idle)");
    if (want.radius == RadiusPath::Compiled)
        return refuseKnob("shared-textbook", "compiled radius (its loops run to the kernel size)");
    if (pickCount(want.perThreadX, 1, {1}) < 0 || pickCount(want.perThreadY, 1, {1}) < 0)
        return "the shared-textbook mode computes one pixel per thread";
    out.block = pickBlock(want, dim3(32, 32));
    const int tileW = static_cast<int>(out.block.x) - (f.math.kw - 1);
    const int tileH = static_cast<int>(out.block.y) - (f.math.kh - 1);
    if (tileW < 1 || tileH < 1)
        return {RefusalReason::FilterUnsupported,
                "the textbook tile is the block less the kernel's halo: a " + std::to_string(out.block.x) + "x" +
                    std::to_string(out.block.y) + " block leaves no outputs for a " + std::to_string(f.math.kw) +
                    "x" + std::to_string(f.math.kh) + " kernel (the largest block, 32x32, takes kernels up to 31x31)"};
    out.kernel = textbookKernelFor(f);
    out.grid = dim3(ceilDiv(width, tileW), ceilDiv(std::max(rows, 1), tileH));
    out.sharedBytes = static_cast<std::size_t>(out.block.x) * out.block.y * depthBytes(f.inDepth);
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), 1, 1, HaloScheme::Default,
                              RadiusPath::Runtime};
    const int threads = static_cast<int>(out.block.x * out.block.y);
    out.variant = "shared-textbook, " + std::to_string(tileW) + "x" + std::to_string(tileH) + " outputs of " +
                  std::to_string(out.block.x) + "x" + std::to_string(out.block.y) + " threads (" +
                  std::to_string(100 * tileW * tileH / threads) + "% compute)";
    return checkPlan(out);
}

Refusal supportsTextbook(const PreparedFilter& f) { return supportedIfPlans(planTextbook, f); }

cudaError_t launchTextbook(const LaunchArgs& a, cudaStream_t stream) {
    return planAndLaunch<GeomMathKernel>(sharedTextbookMode(), a, stream, a.geom, a.filter->math);
}

std::vector<LaunchConfig> textbookCandidates() {
    std::vector<LaunchConfig> out;
    for (const auto& [w, h] : {std::pair{16, 16}, {32, 8}, {32, 16}, {32, 32}})
        out.push_back(LaunchConfig{w, h, 1, 1, {}, {}});
    return out;
}

}  // namespace

const ModeImpl& sharedTextbookMode() {
    static const ModeImpl mode{
        "shared-textbook",
        "The textbook shared-memory tile: each thread of a 32x32 block copies one pixel of the tile and its halo "
        "into shared memory, one colour channel at a time, then only the inner threads compute while the halo "
        "threads sit idle (3x3: 88% of the threads compute, 15x15: 32%). Pixels are staged in the image's own "
        "type, bytes for 8-bit images, as the course paper did, whose shared version ran slower than plain global "
        "memory: each byte is reused only kw x kh times, the barriers and idle threads cost more than the cache "
        "saves. Compare it with shared, which loads the halo with every thread and computes several outputs each.",
        supportsTextbook, uploadConstantWeights, planTextbook, launchTextbook, textbookCandidates};
    return mode;
}

}  // namespace fs::gpu
