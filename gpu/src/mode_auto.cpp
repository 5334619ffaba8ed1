// Mode "auto": the separable mode for the rank-1 kernels and magnitude pairs
// it runs faster than the registers mode, the registers mode for other kernels
// up to 7x7 and one dense kernel above where it compiles its quads, the
// separable mode
// for larger rank-1 kernels (kw + kh work instead of kw * kh), the fft mode for dense kernels of kFftAutoMinTaps taps
// or more (fft_tiling.hpp) where no compiled shared-mode kernel is faster and
// a direct mode would not be bit-exact anyway, otherwise the shared-memory
// mode: the fastest correct choice in filterstudio-bench's table of every
// mode (bench/results/). Runs with a default launch take the autotuner's
// configuration for the chosen mode when there is one.
#include <algorithm>
#include <cmath>

#include "fft_tiling.hpp"
#include "kernel_variants.hpp"
#include "launch.hpp"

namespace fs::gpu {
namespace {

// Integer weights, integer mapping, integer samples in and out: every direct
// mode's sums are exact integers, so their results are bit-exact; auto keeps that.
bool directIsExact(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    const auto integral = [](float v) { return v == std::round(v); };
    return f.inDepth != Depth::F32 && !m.outFloat && integral(m.scale) && integral(m.offset) &&
           std::all_of(f.weights.begin(), f.weights.end(), integral);
}

// The shared mode's compiled kernels beat the fft mode up to these sizes
// (fft_tiling.hpp); below them a run-time radius would not.
static_assert(sharedQuadRadiusBuilt(kFftAutoGrayDirectMax / 2) &&
                  sharedRadiusBuilt(4, kFftAutoColourDirectMax / 2, 1, 3) &&
                  sharedRadiusBuilt(4, kFftAutoColourDirectMax / 2, 1, 4),
              "auto keeps these sizes out of the fft mode: the shared mode must compile them");
bool compiledDirectBeatsFft(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    if (m.kw != m.kh || m.kernelCount != 1) return false;
    return m.kw <= (f.channels == 1 ? kFftAutoGrayDirectMax : kFftAutoColourDirectMax);
}

bool fftPaysOff(const PreparedFilter& f) {
    return !f.separable && f.math.kw * f.math.kh >= kFftAutoMinTaps && !directIsExact(f) &&
           !compiledDirectBeatsFft(f) && fftMode().supports(f).ok();
}

// One dense 7x7 kernel on a u16 gray image: the shared mode's 4 adjacent
// columns beat the registers mode's one column (H100 8K f32, before f32 got
// its own 4 adjacent pixels: 0.185 against 0.226 ms). f32 and u8 gray keep
// the registers mode's adjacent pixels (H200 8K f32: 0.168 against the shared
// mode's 0.185; u8 0.184 against 0.216 on the H100).
bool sharedBeatsRegisters(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    return !f.separable && f.channels == 1 && f.inDepth == Depth::U16 && m.kernelCount == 1 && m.kw == 7 &&
           m.kh == 7;
}

// The separable mode's quads (rank-1 kernels to 9x9, gray u8 to 13x13 and f32
// to 11x11, and magnitudes to 7x7 on gray u8 and f32, BGR8 and RGBA8) beat the
// registers mode's kw x kw taps, except at 3x3 for one f32 kernel and on RGBA8
// (H200 8K: u8 Gaussian 3x3 0.036 against 0.047 ms, 5x5 0.049 against 0.066,
// 7x7 0.065 against 0.101, Sobel magnitude 3x3 0.060 against 0.073; f32
// Gaussian 5x5 0.078 against 0.083, 7x7 0.084 against 0.103, Sobel magnitude
// 3x3 0.073 against 0.077; f32 Gaussian 3x3 0.071 against 0.069; BGR8 Gaussian
// 3x3 0.087 against 0.090, 5x5 0.123 against 0.287, Sobel magnitude 3x3 0.170
// against 0.316; RGBA8 Gaussian 5x5 0.161 against 0.310, 3x3 0.115 against
// 0.090 in integer lanes, Sobel magnitude 3x3 0.234 against 0.121;
// bench/results/h200-2026-11-28c/, h200-2026-11-28d/). They also beat the
// rolling strip at 7x7 and 9x9 (BGR8 0.183 against 0.309 and 0.249 against
// 0.321, RGBA8 0.243 against 0.345 and 0.330 against 0.355), and on gray at
// 11x11 and u8 13x13 (u8 0.103 and 0.128 against 0.133 and 0.137, f32 0.105
// against 0.122; bench/results/h200-2026-11-28f/).
bool quadsBeatRegisters(const PreparedFilter& f) {
    const bool oneF32Kernel = f.inDepth == Depth::F32 && f.math.kernelCount == 1;
    const bool registers3x3 = f.math.kw == 3 && (f.channels == 4 || oneF32Kernel);
    return separableRunsQuads(f) && !registers3x3;
}

// The rolling strip runs single square kernels from 5x5 that the quads do
// not: gray u16 from 5x5 (its registers kernel is one column a thread),
// gray u8 from 15x15, f32 from 13x13 and 8-bit colour from 11x11.
bool stripBeatsRegisters(const PreparedFilter& f) { return separableRunsStrip(f); }

// Magnitudes of two rank-1 kernels from 5x5 (Sobel 5 and 7) on colour: the
// separable mode's kw + kh taps beat the registers mode's kw x kw on every
// layout (H100 8K Sobel magnitude 5: 0.47-0.76 ms against 0.74-1.23; 7:
// 0.52-0.83 against 1.22-2.06; bench/results/h100-2026-11-28e/sweep/ours.csv).
bool separablePairBeatsRegisters(const PreparedFilter& f) {
    return f.separable && f.math.kernelCount > 1 && std::max(f.math.kw, f.math.kh) >= 5 &&
           separableMode().supports(f).ok();
}

// One dense kernel above 7x7 where the registers mode compiles its quads
// (registersRunsWideQuads): they beat the shared mode (H200 8K 9x9: u8 gray
// 0.148 against 0.255 ms, f32 0.133 against 0.221, BGR8 0.454 against 0.672,
// RGBA8 0.618 against 0.751; 11x11: u8 gray 0.235 against 0.331, f32 0.202
// against 0.276, BGR8 0.758 against 0.895; 13x13 and 15x15: u8 gray 0.341
// and 0.440 against 0.418 and 0.541, f32 0.281 and 0.403 against 0.392 and
// 0.489; bench/results/h200-2026-11-28e/).
bool wideQuadsBeatShared(const PreparedFilter& f) { return !f.separable && registersRunsWideQuads(f); }

const ModeImpl& chooseAutoMode(const PreparedFilter& f) {
    if (quadsBeatRegisters(f) || stripBeatsRegisters(f) || separablePairBeatsRegisters(f)) return separableMode();
    if (sharedBeatsRegisters(f) && sharedMode().supports(f).ok()) return sharedMode();
    if (std::max(f.math.kw, f.math.kh) <= 7 || wideQuadsBeatShared(f)) return registersMode();
    if (f.separable && separableMode().supports(f).ok()) return separableMode();
    if (fftPaysOff(f)) return fftMode();
    if (sharedMode().supports(f).ok()) return sharedMode();
    return constantMode();
}

}  // namespace

const ModeImpl& autoMode() {
    static const ModeImpl mode{
        "auto",
        "Picks the fastest correct mode for the filter: separable for rank-1 kernels on gray u8 and f32, BGR8 and "
        "RGBA8 images to 9x9, gray u8 to 13x13 and f32 to 11x11 (3x3 on RGBA8 and one f32 3x3 kernel excepted) "
        "and magnitudes of two to 7x7, which it runs in registers, for rank-1 kernels its rolling strip runs (gray "
        "u16 from 5x5, u8 from 15x15, f32 from 13x13, colour from 11x11) and "
        "for magnitudes of two rank-1 "
        "kernels from 5x5 (Sobel 5 and 7), registers for other kernels up to 7x7 (shared for "
        "one dense 7x7 on a gray u16 image) and for one dense kernel to 15x15 on gray u8 and f32, 11x11 on BGR8 "
        "and 9x9 on RGBA8, separable for larger rank-1 kernels, fft for dense kernels of "
        "289 taps (17x17) or more unless the shared mode has a faster compiled kernel (square, to 21x21 on gray "
        "images, 17x17 on colour) or integer weights on integer images keep the direct modes bit-exact, otherwise "
        "shared; with the launch configuration the autotuner found for this GPU, filter and image size, when there "
        "is one.",
        nullptr, nullptr, nullptr, nullptr, nullptr, chooseAutoMode, /*isDefault=*/true};
    return mode;
}

}  // namespace fs::gpu
