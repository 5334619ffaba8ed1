// Mode "registers": no shared memory and no barriers. Each thread slides a
// window down a column of PY outputs, keeping the partial sums in registers
// (vertical reuse), while the read-only data cache (L1) serves the horizontal
// reuse between neighbouring threads. Threads away from the image edges skip
// fs::borderIndex entirely. Best for small kernels, where the tiled modes
// spend more on staging and barriers than on arithmetic. 3x3 on 4-byte pixels
// has its own kernels: gray f32 4 adjacent pixels per thread from 16-byte
// loads; RGBA8 2 adjacent pixels from 8-byte loads, or 4 from 16-byte loads,
// in floats or, for dyadic weights whose sums fit 16-bit lanes (Gaussian, Laplacian,
// sharpen, Sobel magnitude), in exact integer lanes.
#include <algorithm>
#include <string>

#include "registers_kernel.cuh"

namespace fs::gpu {
namespace {

// Rows per thread: the compiled-radius kernels are built for 2, 4, 8 and 16
// (16 only when C x K <= 2: more accumulators would spill), the run-time
// radius kernel for 4. 3x3 default 2 columns x 4 rows where the sums are few:
// the autotuner's table on an H100 (8K f32 gray Sobel 3x3: 0.119 ms against
// 0.257 ms for 1 x 16, whose 176 registers per thread leave one block per SM).
// 5x5 and 7x7: one column, 32x4 blocks; rows from the autotuner's table
// (H100, 8K, one run): gray Gaussian 5x5 1x4 0.157 ms against 0.353 for 1x16,
// 7x7 1x2 0.248 against 0.441 for 1x8; RGBA8 5x5 1x8 0.324, 7x7 1x4 0.576
// against 0.827 for 1x8. Longer columns need more registers than they save.
int defaultRegisterColumns(int channels, int kernels, int radius) {
    return radius == 1 && channels * kernels <= 2 ? 2 : 1;
}
int defaultRegisterRows(int channels, int kernels, int radius) {
    if (radius < 2) return 4;
    const bool gray = channels * kernels <= 2;
    return radius == 2 ? (gray ? 4 : 8) : (gray ? 2 : 4);
}

// Which kernel runs: the general one (columns strided by the block width) or,
// for 3x3 on 4-byte pixels, adjacent pixels from wide loads.
enum class RegistersKernel { Strided, Rgba8Pairs, Rgba8Quads, Rgba8Lanes, GrayF32Quads };

Refusal planRegisters(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (want.halo != HaloScheme::Default) return refuseKnob("registers", "shared-memory halo to load (only shared has)");
    const KernelMath& m = f.math;
    const int C = f.channels, K = m.kernelCount;
    const bool compilable = m.kw == m.kh && m.kw >= 3 && m.kw <= 7;
    if (want.radius == RadiusPath::Compiled && !compilable)
        return "the registers mode compiles square kernels of radius 1 to 3 (3x3 to 7x7); this one needs the "
               "run-time radius";
    const int radius = compilable && want.radius != RadiusPath::Runtime ? m.kw / 2 : -1;
    const bool rgba8 = f.inDepth == Depth::U8 && C == 4 && radius == 1;
    const bool grayF32 = f.inDepth == Depth::F32 && C == 1 && radius == 1;
    // RGBA8: 4 adjacent pixels; a magnitude in floats 2 (H100, 8K Sobel: 0.296 ms
    // against 0.340 for 4, at 114 registers).
    const int rgba8Columns = K == 1 || f.packedLanes ? 4 : 2;
    const int px =
        pickCount(want.perThreadX, rgba8 ? rgba8Columns : grayF32 ? 4 : defaultRegisterColumns(C, K, radius), {1, 2, 4});
    if (px < 0) return "the registers mode computes 1, 2 or 4 columns per thread";
    // Exact integer lanes where the weights allow (PreparedFilter::packedLanes), floats otherwise.
    const bool lanes = rgba8 && f.packedLanes;
    const bool separableGradient = lanes && K == 2 && f.laneGradientCentre.has_value();
    const RegistersKernel kind = rgba8 && px == 2   ? RegistersKernel::Rgba8Pairs
                                 : lanes && px == 4 ? RegistersKernel::Rgba8Lanes
                                 : rgba8 && px == 4 ? RegistersKernel::Rgba8Quads
                                 : grayF32 && px == 4 ? RegistersKernel::GrayF32Quads
                                                      : RegistersKernel::Strided;
    int py = 0;
    if (kind == RegistersKernel::Rgba8Pairs) {
        py = pickCount(want.perThreadY, K == 1 ? 4 : 2, {2, 4});
        if (py < 0) return "the RGBA8 3x3 pair kernel computes 2 or 4 rows per thread";
    } else if (kind == RegistersKernel::Rgba8Quads) {
        py = K == 1 ? pickCount(want.perThreadY, 2, {2, 4}) : pickCount(want.perThreadY, 2, {2});
        if (py < 0)
            return K == 1 ? "the RGBA8 3x3 kernel of 4 adjacent pixels computes 2 or 4 rows per thread"
                          : "the RGBA8 3x3 kernel of 4 adjacent pixels computes 2 rows per thread for two kernels "
                            "(4 rows need 128 sums: they spill)";
    } else if (kind == RegistersKernel::Rgba8Lanes) {
        // 2 rows: H100, 8K Gaussian 3x3, 0.111 ms against 0.117-0.118 ms for 4 (one run each);
        // separable Sobel magnitude, 0.137-0.140 ms against 0.157-0.160 (122 registers) and
        // 0.246-0.248 for 8 rows (198 registers), two runs each.
        py = K == 1 || separableGradient ? pickCount(want.perThreadY, 2, {2, 4}) : pickCount(want.perThreadY, 2, {2});
        if (py < 0)
            return K == 1 ? "the RGBA8 3x3 integer-lane kernel of 4 adjacent pixels computes 2 or 4 rows per thread"
                   : separableGradient
                       ? "the RGBA8 3x3 separable integer-lane gradient kernel computes 2 or 4 rows per thread"
                       : "the RGBA8 3x3 integer-lane magnitude kernel computes 2 rows per thread (4 rows hold 64 "
                         "sums)";
    } else if (kind == RegistersKernel::GrayF32Quads) {
        py = pickCount(want.perThreadY, 2, {2, 4, 8});
        if (py < 0) return "the gray f32 3x3 kernel of 4 adjacent pixels computes 2, 4 or 8 rows per thread";
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
        switch (kind) {
        case RegistersKernel::Rgba8Pairs: out.kernel = rgba8PairVariant(py, K); break;
        case RegistersKernel::Rgba8Quads: out.kernel = rgba8QuadVariant(py, K); break;
        case RegistersKernel::Rgba8Lanes:
            out.kernel = rgba8LaneVariant(py, K, f.laneForm.clamps, f.laneGradientZeros, separableGradient);
            break;
        case RegistersKernel::GrayF32Quads: out.kernel = grayF32QuadVariant(py, K); break;
        default: out.kernel = registersKernelFor<T>(CC, K, radius, py); break;
        }
    });
    out.block = pickBlock(want, radius >= 2 ? dim3(32, 4) : dim3(32, 8));
    out.grid = gridFor(width, rows, out.block, px, py);
    out.sharedBytes = 0;
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), px, py,
                              HaloScheme::Default, radius > 0 ? RadiusPath::Compiled : RadiusPath::Runtime};
    out.variant = std::string("registers, ") +
                  (radius > 0 ? "compiled radius " + std::to_string(radius) : std::string("run-time radius")) + ", " +
                  std::to_string(px) + "x" + std::to_string(py) + " outputs per thread" +
                  (kind == RegistersKernel::Rgba8Pairs     ? " (adjacent RGBA8 pairs, 8-byte loads)"
                   : kind == RegistersKernel::Rgba8Quads   ? " (4 adjacent RGBA8 pixels, 16-byte loads and stores)"
                   : kind == RegistersKernel::Rgba8Lanes
                       ? std::string(" (4 adjacent RGBA8 pixels in exact 16-bit integer lanes") +
                             (separableGradient       ? ", separable [1 " + std::to_string(*f.laneGradientCentre) +
                                                      " 1] gradient pair"
                              : f.laneGradientZeros ? ", gradient zeros skipped"
                                                    : "") +
                             ", 16-byte loads and stores)"
                   : kind == RegistersKernel::GrayF32Quads ? " (4 adjacent f32 pixels, 16-byte loads and stores)"
                                                           : "");
    return checkPlan(out);
}

Refusal supportsRegisters(const PreparedFilter&) { return {}; }

std::vector<LaunchConfig> registersCandidates() {
    return candidateGrid({{1, 2}, {1, 4}, {1, 8}, {1, 16}, {2, 2}, {2, 4}, {2, 8}, {4, 2}, {4, 4}, {4, 8}});
}

cudaError_t prepareRegisters(const PreparedFilter& f, cudaStream_t stream) {
    for (cudaError_t (*upload)(const PreparedFilter&, cudaStream_t) :
         {uploadRegistersWeights<std::uint8_t>, uploadRegistersWeights<std::uint16_t>, uploadRegistersWeights<float>})
        if (const cudaError_t err = upload(f, stream); err != cudaSuccess) return err;
    return uploadLaneWeights(f, stream);
}

cudaError_t launchRegisters(const LaunchArgs& a, cudaStream_t stream) {
    LaunchPlan plan;
    if (!planRegisters(*a.filter, a.config, a.geom.width, a.geom.outRows, plan).ok())
        return cudaErrorInvalidConfiguration;
    // Every registers kernel takes the same parameters (the adjacent-pixel ones ignore the column count).
    return launchPlanned(plan, stream, a.geom, a.filter->math, plan.config.perThreadX);
}

}  // namespace

const ModeImpl& registersMode() {
    static const ModeImpl mode{"registers",
                               "Each thread slides down a column of outputs keeping partial sums in registers; "
                               "neighbouring threads share pixels through the L1 cache. No shared memory, no "
                               "barriers: the fastest choice for small kernels.",
                               supportsRegisters, prepareRegisters, planRegisters, launchRegisters, registersCandidates};
    return mode;
}

}  // namespace fs::gpu
