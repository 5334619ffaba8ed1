// Mode "registers": no shared memory and no barriers. Each thread slides a
// window down a column of PY outputs, keeping the partial sums in registers
// (vertical reuse), while the read-only data cache (L1) serves the horizontal
// reuse between neighbouring threads. Threads away from the image edges skip
// fs::borderIndex entirely. Best for small kernels, where the tiled modes
// spend more on staging and barriers than on arithmetic. 3x3 on 4-byte pixels
// has its own kernels: gray f32 4 adjacent pixels per thread from 16-byte
// loads; RGBA8 2 adjacent pixels from 8-byte loads, or 4 from 16-byte loads,
// in floats or, for dyadic weights whose sums fit 16-bit lanes (Gaussian, Laplacian,
// sharpen, Sobel magnitude), in exact integer lanes; BGR8 single kernels with
// such weights in the same lanes, 16 adjacent bytes per thread. BGR8 single
// 3x3 to 7x7 kernels otherwise run 4 adjacent pixels per thread from 4-byte
// loads, in floats, and RGBA8 single 5x5 and 7x7 kernels 4 adjacent pixels
// from 16-byte loads. One 9x9 to 15x15 kernel on gray u8 and f32, to 11x11
// on BGR8 and 9x9 on RGBA8 runs these quads too (compiled for them only):
// 0.6-0.85x the shared mode's time.
#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include "registers_kernel.cuh"

namespace fs::gpu {
namespace {

// 3x3 default 2 columns x 4 rows where the sums are few; 5x5 and 7x7 one
// column, 32x4 blocks, rows from the autotuner's table
// (registersDefaultRows): longer columns need more registers than they save
// (16 rows at 3x3 use 176 registers per thread, one block per SM;
// docs/performance.md). Only those rows are built for a compiled radius,
// 4 for the run-time radius (-DFS_CUDA_ALL_VARIANTS=ON: 2, 4, 8 and 16, 16
// only when C x K <= 2: more accumulators would spill).
// Gray u8 3x3: adjacent pixels per thread from one 4-byte load (denseQuadKernel;
// 8 and 16 from wider loads measured slower, docs/performance.md); single 5x5
// and 7x7 kernels too, 4 pixels, and on gray f32 4 pixels from 16-byte loads.
constexpr int kGray8Pixels = 4;

int defaultRegisterColumns(int channels, int kernels, int radius) {
    return radius == 1 && channels * kernels <= 2 ? 2 : 1;
}

// What the choice of kernel depends on.
struct RegistersShape {
    const PreparedFilter* f = nullptr;
    int C = 1, K = 1;
    int radius = -1;                  // -1: the run-time radius kernel
    bool rgba8 = false;               // u8 RGBA 3x3: adjacent pixels from wide loads
    bool grayF32 = false;             // f32 gray 3x3: 4 adjacent pixels
    bool gray8 = false;               // u8 gray 3x3: 4, 8 or 16 adjacent pixels
    bool gray8Wide = false;           // u8 gray single 5x5 to 15x15: 4 or 8 adjacent pixels
    bool grayF32Wide = false;         // f32 gray single 5x5 to 15x15: 4 adjacent pixels
    int px = 1;                       // columns (or adjacent pixels) per thread
    bool lanes = false;               // rgba8 in exact integer lanes (PreparedFilter::packedLanes)
    bool bgr8Lanes = false;           // BGR u8 single 3x3 in exact integer lanes, 16 bytes per thread
    bool bgr8Quads = false;           // BGR u8 single 3x3 to 11x11 in floats: 4 adjacent pixels
    bool rgba8Quads = false;          // RGBA8 single 5x5 to 9x9 in floats: 2 or 4 adjacent pixels
    bool separableGradient = false;   // lanes, a [1 b 1] x [-1 0 1] magnitude pair
};

// Rows per thread a kernel family is built for: the default, the allowed
// counts, and what a refused count is told.
struct RowChoice {
    int fallback;
    std::array<int, 4> allowed;  // 0: unused
    std::string refusal;

    // As pickCount: the requested count (0: the fallback), or -1 when not allowed.
    int pick(int requested) const {
        const int v = requested > 0 ? requested : fallback;
        return std::find(allowed.begin(), allowed.end(), v) != allowed.end() ? v : -1;
    }
};

// One family of registers kernels: when it runs (for the shape's px columns per thread),
// its rows, the kernel for py rows, and how the Launch panel names it. The
// planner takes the first family that applies.
struct RegistersFamily {
    bool (*applies)(const RegistersShape& s);
    RowChoice (*rows)(const RegistersShape& s);
    KernelRef (*kernel)(const RegistersShape& s, int py);
    std::string (*describe)(const RegistersShape& s);
    // Quad kernels: the outputs they compute from plain loads; the launch
    // adds blocks for the rest (quad_frame.hpp). Else nullptr.
    QuadSpan (*span)(const KernelGeom& g, const KernelMath& m, int pixels, int rows) = nullptr;
};

// The gray u8 adjacent-pixel families, as the Launch panel names them.
std::string describeAdjacentU8(const RegistersShape& s) {
    return " (" + std::to_string(s.px) + " adjacent u8 pixels, " + std::to_string(s.px) +
           "-byte loads and stores; edge pixels in extra leading blocks)";
}

// The gray f32 adjacent-pixel families, as the Launch panel names them.
std::string describeAdjacentF32(const RegistersShape&) {
    return " (4 adjacent f32 pixels, 16-byte loads and stores; edge pixels in extra leading blocks)";
}

QuadSpan pixelSpan(const KernelGeom& g, const KernelMath&, int, int rows) { return pixelQuadSpan(g, rows); }

// 2 rows for the integer lanes: 4 and 8 rows measured slower for Gaussian 3x3
// and the separable Sobel magnitude (more live sums, up to 198 registers;
// docs/performance.md).
const RegistersFamily kFamilies[] = {
    {// RGBA8 3x3, 2 adjacent pixels from 8-byte loads (one kernel: built with every variant)
     [](const RegistersShape& s) { return s.rgba8 && s.px == 2 && (kAllVariants || s.K == 2); },
     [](const RegistersShape& s) {
         if (!kAllVariants) return RowChoice{2, {2}, "the RGBA8 3x3 pair kernel computes 2 rows per thread"};
         return RowChoice{s.K == 1 ? 4 : 2, {2, 4}, "the RGBA8 3x3 pair kernel computes 2 or 4 rows per thread"};
     },
     [](const RegistersShape& s, int py) { return rgba8PairVariant(py, s.K); },
     [](const RegistersShape&) { return std::string(" (adjacent RGBA8 pairs, 8-byte loads)"); }},
    {// RGBA8 3x3 in exact integer lanes, 4 adjacent pixels
     [](const RegistersShape& s) { return s.lanes && s.px == 4; },
     [](const RegistersShape& s) {
         if (!kAllVariants && (s.K == 1 || s.separableGradient))
             return RowChoice{2, {2}, "the RGBA8 3x3 integer-lane kernels compute 2 rows per thread (4 measured slower)"};
         if (s.K == 1)
             return RowChoice{2, {2, 4}, "the RGBA8 3x3 integer-lane kernel of 4 adjacent pixels computes 2 or 4 rows per thread"};
         if (s.separableGradient)
             return RowChoice{2, {2, 4}, "the RGBA8 3x3 separable integer-lane gradient kernel computes 2 or 4 rows per thread"};
         return RowChoice{2, {2}, "the RGBA8 3x3 integer-lane magnitude kernel computes 2 rows per thread (4 rows hold 64 sums)"};
     },
     [](const RegistersShape& s, int py) {
         return rgba8LaneVariant(py, s.K, s.f->laneForm.clamps, s.f->laneGradientZeros, s.separableGradient);
     },
     [](const RegistersShape& s) {
         const PreparedFilter& f = *s.f;
         return std::string(" (4 adjacent RGBA8 pixels in exact 16-bit integer lanes") +
                (s.separableGradient ? ", separable [1 " + std::to_string(*f.laneGradientCentre) + " 1] gradient pair"
                 : f.laneGradientZeros ? ", gradient zeros skipped"
                                       : "") +
                ", 16-byte loads and stores)";
     }},
    {// RGBA8 3x3 in floats, 4 adjacent pixels (a magnitude: built with every variant)
     [](const RegistersShape& s) { return s.rgba8 && s.px == 4 && (kAllVariants || s.K == 1); },
     [](const RegistersShape& s) {
         if (!kAllVariants)
             return RowChoice{2, {2}, "the RGBA8 3x3 kernel of 4 adjacent pixels computes 2 rows per thread (4 measured slower)"};
         if (s.K == 1) return RowChoice{2, {2, 4}, "the RGBA8 3x3 kernel of 4 adjacent pixels computes 2 or 4 rows per thread"};
         return RowChoice{2, {2}, "the RGBA8 3x3 kernel of 4 adjacent pixels computes 2 rows per thread for two kernels "
                                  "(4 rows need 128 sums: they spill)"};
     },
     [](const RegistersShape& s, int py) { return rgba8QuadVariant(py, s.K); },
     [](const RegistersShape&) {
         return std::string(" (4 adjacent RGBA8 pixels, 16-byte loads and stores; edge pixels in extra leading blocks)");
     },
     pixelSpan},
    {// gray f32 3x3, 4 adjacent pixels
     [](const RegistersShape& s) { return s.grayF32 && s.px == 4; },
     [](const RegistersShape&) {
         if (!kAllVariants)
             return RowChoice{2, {2}, "the gray f32 3x3 kernel of 4 adjacent pixels computes 2 rows per thread (4 and 8 "
                                      "measured slower)"};
         return RowChoice{2, {2, 4, 8}, "the gray f32 3x3 kernel of 4 adjacent pixels computes 2, 4 or 8 rows per thread"};
     },
     [](const RegistersShape& s, int py) { return grayF32QuadVariant(py, s.K); },
     describeAdjacentF32,
     pixelSpan},
    {// BGR u8 single 3x3 in exact integer lanes, 16 adjacent bytes
     [](const RegistersShape& s) { return s.bgr8Lanes && s.px == 16; },
     [](const RegistersShape&) {
         return RowChoice{2, {2}, "the BGR8 3x3 integer-lane kernel of 16 adjacent bytes computes 2 rows per thread"};
     },
     [](const RegistersShape& s, int py) { return bgr8LaneVariant(py, s.f->laneForm.clamps); },
     [](const RegistersShape&) {
         return std::string(" (16 adjacent bytes in exact 16-bit integer lanes, 16-byte loads and stores)");
     }},
    {// BGR u8 single 3x3 to 11x11 in floats, 4 adjacent pixels
     [](const RegistersShape& s) { return s.bgr8Quads && s.px == 4; },
     [](const RegistersShape& s) {
         if (!kAllVariants)
             return RowChoice{bgr8QuadRows(s.radius), {bgr8QuadRows(s.radius)},
                              "the BGR8 kernel of 4 adjacent pixels computes " + std::to_string(bgr8QuadRows(s.radius)) +
                                  " rows per thread at this size (the other counts measured slower)"};
         return RowChoice{bgr8QuadRows(s.radius), {2, 4, 8}, "the BGR8 kernel of 4 adjacent pixels computes 2, 4 or 8 rows "
                                                     "per thread"};
     },
     [](const RegistersShape& s, int py) { return bgr8QuadVariant(s.radius, py); },
     [](const RegistersShape&) {
         return std::string(" (4 adjacent BGR8 pixels, 4-byte loads and stores; edge pixels in extra leading blocks)");
     },
     bgr8QuadSpan},
    {// RGBA8 single 5x5 to 9x9 in floats, adjacent pixels
     [](const RegistersShape& s) {
         return s.rgba8Quads && (rgba8DenseQuadBuilt(s.radius, s.px, 2) || rgba8DenseQuadBuilt(s.radius, s.px, 4) ||
                                 rgba8DenseQuadBuilt(s.radius, s.px, 8));
     },
     [](const RegistersShape& s) {
         RowChoice choice{rgba8DenseQuadRows(s.radius), {}, "the RGBA8 kernel of " + std::to_string(s.px) +
                                                                " adjacent pixels computes "};
         int listed = 0;
         for (int rows : {2, 4, 8})
             if (rgba8DenseQuadBuilt(s.radius, s.px, rows)) {
                 choice.refusal += (listed ? " or " : "") + std::to_string(rows);
                 choice.allowed[listed++] = rows;
             }
         choice.refusal += " rows per thread at this size in this build";
         return choice;
     },
     [](const RegistersShape& s, int py) { return rgba8DenseQuadVariant(s.radius, s.px, py); },
     [](const RegistersShape& s) {
         return " (" + std::to_string(s.px) + " adjacent RGBA8 pixels, " + std::to_string(4 * s.px) +
                "-byte loads and stores; edge pixels in extra leading blocks)";
     },
     rgba8QuadSpan},
    {// gray u8 3x3, adjacent pixels from 4-byte loads (8 and 16 from wider loads: built with every variant)
     [](const RegistersShape& s) { return s.gray8 && (s.px == 4 || (kAllVariants && (s.px == 8 || s.px == 16))); },
     [](const RegistersShape&) {
         if (!kAllVariants)
             return RowChoice{2, {2}, "the gray u8 3x3 kernel of 4 adjacent pixels computes 2 rows per thread (4 "
                                      "measured slower)"};
         return RowChoice{2, {2, 4}, "the gray u8 3x3 kernel of adjacent pixels computes 2 or 4 rows per thread"};
     },
     [](const RegistersShape& s, int py) { return gray8QuadVariant(1, s.px, py, s.K); },
     describeAdjacentU8, grayU8QuadSpan},
    {// gray u8 single 5x5 to 15x15, 4 adjacent pixels from 4-byte loads (8: built with every variant)
     [](const RegistersShape& s) { return s.gray8Wide && (s.px == 4 || (kAllVariants && s.px == 8)); },
     [](const RegistersShape&) {
         if (!kAllVariants)
             return RowChoice{4, {4}, "the gray u8 5x5 to 15x15 kernel of 4 adjacent pixels computes 4 rows per "
                                      "thread (2 measured slower)"};
         return RowChoice{4, {2, 4}, "the gray u8 5x5 to 15x15 kernel of adjacent pixels computes 2 or 4 rows per "
                                     "thread"};
     },
     [](const RegistersShape& s, int py) { return gray8QuadVariant(s.radius, s.px, py, s.K); },
     describeAdjacentU8, grayU8QuadSpan},
    {// gray f32 single 5x5 to 15x15, 4 adjacent pixels from 16-byte loads
     [](const RegistersShape& s) { return s.grayF32Wide && s.px == 4; },
     [](const RegistersShape& s) {
         const int rows = grayF32WideRows(s.radius);
         const std::string size = std::to_string(2 * s.radius + 1);
         if (!kAllVariants)
             return RowChoice{rows, {rows}, "the gray f32 " + size + "x" + size +
                                                " kernel of 4 adjacent pixels computes " + std::to_string(rows) +
                                                " rows per thread (" + (rows == 2 ? "4" : "2") + " measured slower)"};
         return RowChoice{rows, {2, 4}, "the gray f32 5x5 to 15x15 kernel of 4 adjacent pixels computes 2 or 4 rows "
                                        "per thread"};
     },
     [](const RegistersShape& s, int py) { return grayF32WideVariant(s.radius, py); },
     describeAdjacentF32,
     grayF32QuadSpan},
    {// the general kernel, run-time radius
     [](const RegistersShape& s) { return s.radius < 0; },
     [](const RegistersShape&) { return RowChoice{4, {4}, "the run-time-radius registers kernel computes 4 rows per thread"}; },
     nullptr, [](const RegistersShape&) { return std::string(); }},
    {// the general kernel, compiled radius
     [](const RegistersShape&) { return true; },
     [](const RegistersShape& s) {
         const int rows = registersDefaultRows(s.radius, s.C * s.K);
         if (!kAllVariants && (s.grayF32 || s.gray8 || s.rgba8))
             return RowChoice{rows, {},
                              s.grayF32 ? "gray f32 3x3 runs 4 adjacent pixels per thread in this build (1 or 2 "
                                          "columns measured slower)"
                              : s.gray8 ? "gray u8 3x3 runs 4 adjacent pixels per thread in this build (1, 2, 8 or "
                                          "16 columns measured slower)"
                                        : "RGBA8 3x3 runs 4 adjacent pixels per thread in this build (2 for a "
                                          "magnitude in floats; the other counts measured slower)"};
         if (!kAllVariants)
             return RowChoice{rows, {rows},
                              "the compiled-radius registers kernel computes " + std::to_string(rows) +
                                  " rows per thread for this radius and pixel (other counts measured slower)"};
         return RowChoice{rows, {2, 4, 8, 16}, "the registers mode computes 2, 4, 8 or 16 rows per thread"};
     },
     nullptr, [](const RegistersShape&) { return std::string(); }},
};

// The general kernel for any depth and channel count (the families above without a kernel function).
KernelRef stridedKernel(const RegistersShape& s, int py) {
    KernelRef kernel = nullptr;
    dispatchPixel(s.f->inDepth, s.C, [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int CC = decltype(channels)::value;
        kernel = registersKernelFor<T>(CC, s.K, s.radius, py);
    });
    return kernel;
}

// Gray u8 or f32, one square 5x5 to 15x15 kernel: 4 adjacent pixels a thread.
bool registersRunsGrayQuads(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    const bool fiveOrSeven = (m.kw == 5 || m.kw == 7) &&
                             registersRadiusBuilt(m.kw / 2, static_cast<int>(depthBytes(f.inDepth)), 1, 1);
    return f.channels == 1 && m.kernelCount == 1 && (f.inDepth == Depth::U8 || f.inDepth == Depth::F32) &&
           m.kw == m.kh && (fiveOrSeven || registersRunsWideQuads(f));
}

}  // namespace

// One square dense kernel from 9x9 up to dispatch.hpp's registersWideQuadMaxSide.
bool registersRunsWideQuads(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    const int maxSide = registersWideQuadMaxSide(static_cast<int>(depthBytes(f.inDepth)), f.inDepth == Depth::F32,
                                                 f.channels);
    return m.kw == m.kh && m.kw >= 9 && m.kw <= maxSide && m.kernelCount == 1;
}

namespace {

Refusal planRegisters(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (want.halo != HaloScheme::Default) return refuseKnob("registers", "shared-memory halo to load (only shared has)");
    const KernelMath& m = f.math;
    const bool squareUpTo7 = m.kw == m.kh && m.kw >= 3 && m.kw <= 7;
    const bool compilable = (squareUpTo7 && registersRadiusBuilt(m.kw / 2, static_cast<int>(depthBytes(f.inDepth)),
                                                                 f.channels, m.kernelCount)) ||
                            registersRunsWideQuads(f);
    if (want.radius == RadiusPath::Compiled && !compilable)
        return squareUpTo7 ? "the registers mode compiles 5x5 and 7x7 for single kernels on 8-bit images and gray "
                             "f32 in this build; this one needs the run-time radius"
                           : "the registers mode compiles square kernels of radius 1 to 3 (3x3 to 7x7), and for one "
                             "kernel 9x9 to 15x15 on gray u8 and f32, to 11x11 on BGR8 and 9x9 on RGBA8; this one needs "
                             "the run-time radius";
    RegistersShape s;
    s.f = &f;
    s.C = f.channels;
    s.K = m.kernelCount;
    s.radius = compilable && want.radius != RadiusPath::Runtime ? m.kw / 2 : -1;
    s.rgba8 = f.inDepth == Depth::U8 && s.C == 4 && s.radius == 1;
    s.grayF32 = f.inDepth == Depth::F32 && s.C == 1 && s.radius == 1;
    s.gray8 = f.inDepth == Depth::U8 && s.C == 1 && s.radius == 1;
    const bool grayQuads = s.radius >= 2 && registersRunsGrayQuads(f);
    s.gray8Wide = grayQuads && f.inDepth == Depth::U8;
    s.grayF32Wide = grayQuads && f.inDepth == Depth::F32;
    s.lanes = s.rgba8 && f.packedLanes;
    s.bgr8Lanes = f.inDepth == Depth::U8 && s.C == 3 && s.radius == 1 && s.K == 1 && f.packedLanes;
    s.bgr8Quads = f.inDepth == Depth::U8 && s.C == 3 && s.radius >= 1 && s.K == 1 && !s.bgr8Lanes;
    s.rgba8Quads = f.inDepth == Depth::U8 && s.C == 4 && s.radius >= 2 && s.K == 1;
    s.separableGradient = s.lanes && s.K == 2 && f.laneGradientCentre.has_value();
    // RGBA8: 4 adjacent pixels; a magnitude in floats 2 (4 needs 114 registers
    // and measured slower; docs/performance.md).
    const int rgba8Columns = s.K == 1 || f.packedLanes ? 4 : 2;
    int columns = defaultRegisterColumns(s.C, s.K, s.radius);
    if (s.rgba8) columns = rgba8Columns;
    else if (s.rgba8Quads) columns = rgba8DenseQuadPixels(s.radius);
    else if (s.grayF32 || s.gray8Wide || s.grayF32Wide || s.bgr8Quads) columns = 4;
    // BGR8 lanes: 16 bytes per thread (5 1/3 pixels).
    const int px = s.gray8 || s.bgr8Lanes
                       ? pickCount(want.perThreadX, s.bgr8Lanes ? 16 : kGray8Pixels, {1, 2, 4, 8, 16})
                   : s.gray8Wide ? pickCount(want.perThreadX, columns, {1, 2, 4, 8})
                                 : pickCount(want.perThreadX, columns, {1, 2, 4});
    if (px < 0)
        return s.gray8 || s.bgr8Lanes
                   ? "the registers mode computes 1, 2, 4, 8 or 16 columns (BGR8 lanes: bytes) per thread for gray u8 "
                     "3x3 and BGR8 3x3 integer lanes"
               : s.gray8Wide ? "the registers mode computes 1, 2, 4 or 8 columns per thread for gray u8 5x5 to 15x15"
                             : "the registers mode computes 1, 2 or 4 columns per thread";
    s.px = px;

    auto familyFor = [&]() -> const RegistersFamily& {
        return *std::find_if(std::begin(kFamilies), std::end(kFamilies),
                             [&](const RegistersFamily& fam) { return fam.applies(s); });
    };
    const RegistersFamily* chosen = &familyFor();
    if (s.radius > 3 && !chosen->span) {  // 9x9 and above are compiled for the quads of adjacent pixels only
        if (want.radius == RadiusPath::Compiled)
            return "the registers mode compiles 9x9 and above for its kernels of adjacent pixels only; " + std::to_string(px) +
                   " columns per thread need the run-time radius";
        s.radius = -1;
        s.gray8Wide = s.grayF32Wide = s.bgr8Quads = s.rgba8Quads = false;
        chosen = &familyFor();
    }
    const RegistersFamily& family = *chosen;
    const RowChoice rowChoice = family.rows(s);
    const int py = rowChoice.pick(want.perThreadY);
    if (py < 0) return rowChoice.refusal;
    if (py == 16 && s.C * s.K > 2)
        return "16 rows per thread need " + std::to_string(16 * s.C * s.K) + " accumulator registers (C x K = " +
               std::to_string(s.C * s.K) + "): built for gray single filters only";
    out.kernel = family.kernel ? family.kernel(s, py) : stridedKernel(s, py);
    out.quadSpan = family.span;
    // 32x8 blocks for 3x3, 32x4 for larger radii and for one BGR u8 3x3
    // kernel in the strided kernel, where it measured faster.
    const bool bgr8Strided = !family.kernel && s.radius == 1 && s.C == 3 && s.K == 1 && f.inDepth == Depth::U8;
    out.block = pickBlock(want, s.radius >= 2 || bgr8Strided ? dim3(32, 4) : dim3(32, 8));
    // The BGR8 lanes' threads take 16 bytes of the row, not 16 pixels.
    out.grid = gridFor(s.bgr8Lanes && px == 16 ? width * s.C : width, rows, out.block, px, py);
    out.sharedBytes = 0;
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), px, py,
                              HaloScheme::Default, s.radius > 0 ? RadiusPath::Compiled : RadiusPath::Runtime};
    out.variant = std::string("registers, ") +
                  (s.radius > 0 ? "compiled radius " + std::to_string(s.radius) : std::string("run-time radius")) +
                  ", " + std::to_string(px) + "x" + std::to_string(py) + " outputs per thread" + family.describe(s);
    return checkPlan(out);
}

Refusal supportsRegisters(const PreparedFilter&) { return {}; }

std::vector<LaunchConfig> registersCandidates() {
    if constexpr (kAllVariants)
        return candidateGrid({{1, 2}, {1, 4}, {1, 8}, {1, 16}, {2, 2}, {2, 4}, {2, 8}, {4, 2}, {4, 4}, {4, 8}});
    return candidateGrid({{1, 2}, {1, 4}, {1, 8}, {2, 2}, {2, 4}, {2, 8}, {4, 2}, {4, 4}, {4, 8}});
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
    // Every registers kernel takes the same parameters: the strided ones the
    // column count, the quads the rows of blocks their frame takes.
    if (!plan.quadSpan) return launchPlanned<GeomMathIntKernel>(plan, stream, a.geom, a.filter->math, plan.config.perThreadX);
    return launchQuadPlan(plan, a.geom, a.filter->math, stream);
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
