#pragma once
// Which kernel runs: the one table.
//
// Everything that decides how a filter runs on the GPU lives here and in
// dispatch.cpp: which mode "auto" picks for a filter (autoRules), which kernel
// family each mode's planner takes (the reaches below), and how many outputs
// a thread computes in each family (the shapes below). The planners, the
// kernel files, the batch runner and `filterstudio-cli explain` read it;
// none keeps a threshold of its own. docs/performance.md has the measurements
// behind each number, and gpu/README.md's "Which kernel runs" is generated
// from autoRules (tests/gpu/dispatch_test.cpp keeps the two equal).
//
// Plain C++ (no CUDA types): host planners and device code read the same
// constexpr functions, so a shape is never restated in a kernel file.
#include <string>
#include <vector>

namespace fs::gpu {

struct PreparedFilter;
struct ModeImpl;

// ---- Reaches: which family of a mode runs a filter --------------------------

// The separable mode's quads (separable_quads.cu): one square rank-1 kernel
// up to this radius, per image (sampleBytes 1 for u8, 4 for f32; channels
// 1, 3 or 4) and kernels (2 for a magnitude). Beyond it, the rolling strip.
constexpr int separableQuadMaxRadius(int sampleBytes, int channels, int kernels) {
    if (kernels > 1) return 3;
    if (channels > 1) return 4;
    return sampleBytes == 1 ? 6 : 5;
}

// The separable mode's rolling strip (one square rank-1 kernel, gray or
// 8-bit colour): these radii are compiled.
inline constexpr int kStripMinRadius = 2;
inline constexpr int kStripMaxRadius = 15;

// The registers mode's quads of adjacent pixels above 7x7: one square dense
// kernel from 9x9 up to this side (0: none) on gray u8 and f32, BGR8, RGBA8.
// Above it the shared mode's tile is as fast, and one more kernel per
// architecture does not pay for itself.
constexpr int registersWideQuadMaxSide(int sampleBytes, bool isFloat, int channels) {
    if (channels == 1) return (sampleBytes == 1 || isFloat) ? 15 : 0;
    if (sampleBytes != 1) return 0;
    return channels == 3 ? 11 : channels == 4 ? 9 : 0;
}

// "auto" runs dense kernels of at least kFftAutoMinTaps taps in the fft mode,
// unless integer weights on integer images keep the direct modes bit-exact,
// or the shared mode has a compiled kernel that beats it: square, up to
// kFftAutoGrayDirectMax on one gray kernel and kFftAutoColourDirectMax on one
// colour kernel. The fft's time barely depends on the kernel's size.
inline constexpr int kFftAutoMinTaps = 289;
inline constexpr int kFftAutoGrayDirectMax = 21;
inline constexpr int kFftAutoColourDirectMax = 17;

// "auto" runs one 3x3 rank-1 kernel on RGBA8 in the registers mode's exact
// integer lanes from this many pixels (4K) up, and below it in the separable
// mode's quads: the lanes' 48-register threads fill a 1080p image in 1.5
// waves, half of the last one idle, and their lead grows with the image.
inline constexpr long long kRgba8Lanes3x3MinPixels = 3840LL * 2160;

// The batch runner's "auto": every filter up to this side runs in one fused
// launch from a shared-memory tile staged once per image (fused_kernel.cu),
// up to kBatchFusedMaxFilters filters a launch; larger ones take autoRules.
inline constexpr int kBatchFusedMaxSide = 31;
inline constexpr int kBatchFusedMaxFilters = 32;

// ---- Shapes: outputs per thread of each family ------------------------------
// The autotuner's fastest at 8K on the H200; docs/performance.md, "Shapes".

// Registers mode, gray f32 5x5 to 15x15, 4 adjacent pixels: rows per thread.
constexpr int grayF32WideRows(int radius) { return radius == 2 || radius == 6 ? 2 : 4; }

// Registers mode, general kernel with a compiled radius, C x K sums per
// output: rows per thread (longer columns need more registers than they save).
constexpr int registersDefaultRows(int radius, int channelsTimesKernels) {
    if (radius < 2) return 4;
    const bool gray = channelsTimesKernels <= 2;
    return radius == 2 ? (gray ? 4 : 8) : (gray ? 2 : 4);
}

// Registers mode, BGR8 single 3x3 to 11x11 kernels, 4 adjacent pixels: rows.
constexpr int bgr8QuadRows(int radius) { return radius == 4 ? 2 : 4; }

// Registers mode, RGBA8 single 5x5 to 9x9 kernels: adjacent pixels and rows.
constexpr int rgba8DenseQuadPixels(int /*radius*/) { return 4; }
constexpr int rgba8DenseQuadRows(int radius) { return radius == 2 ? 4 : 2; }

// Separable mode's quads: adjacent pixels and rows per thread.
constexpr int separableQuadPixels(int sampleBytes, int channels, int kernels, int radius) {
    if (channels == 3) return 4;
    if (channels == 4) return kernels > 1 && radius <= 2 ? 2 : 4;
    return sampleBytes == 1 && kernels == 1 && radius <= 2 ? 8 : 4;
}
constexpr int separableQuadRows(int sampleBytes, int channels, int kernels, int radius) {
    if (channels == 3) return kernels == 1 ? 8 : 4;
    if (channels == 4) return kernels == 1 && radius == 4 ? 8 : 4;
    if (sampleBytes == 4) return kernels == 1 && radius == 5 ? 8 : 4;
    return kernels == 1 && radius > 2 ? 8 : 4;
}

// Separable mode's fused tile (the family for rank-1 kernels neither quads
// nor strip run): rows per thread, gray 8 and colour 4.
constexpr int separableTileRows(int channels) { return channels == 1 ? 8 : 4; }

// ---- "auto": the rules, in order; the first that matches decides ------------

struct AutoRule {
    const char* id;         // short name, shown by explain and in gpu/README.md
    const char* when;       // the filters it matches, in words
    const char* why;        // why the mode it picks is the fastest correct one there
    bool (*matches)(const PreparedFilter& f);
    const ModeImpl& (*mode)();
};

const std::vector<AutoRule>& autoRules();

struct AutoChoice {
    const AutoRule* rule = nullptr;
    const ModeImpl* mode = nullptr;
};
AutoChoice chooseAuto(const PreparedFilter& f);

// gpu/README.md's "Which kernel runs" table, from autoRules and the reaches.
std::string dispatchTableMarkdown();

}  // namespace fs::gpu
