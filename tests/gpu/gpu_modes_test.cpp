// Every CUDA mode x border x depth x channel count against fs::cpu::referenceFilter
// on fresh random images (seed printed; FS_TEST_SEED=N replays), written into
// poisoned device memory so an unwritten sample fails.
#include <algorithm>
#include <tuple>

#include "fs/gpu/cuda_options.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

#if defined(FS_CUDA_ALL_VARIANTS)
constexpr bool kLaneRowsFour = true;
#else
constexpr bool kLaneRowsFour = false;  // 4-row lane kernels measured slower: left out of the default build
#endif

struct NamedSpec {
    std::string name;
    FilterSpec spec;
    bool separable;  // rank 1: the separable mode accepts it
};

std::vector<NamedSpec> specsFor(Depth depth, Border border, std::mt19937& rng, bool large) {
    const bool integerImage = depth != Depth::F32;
    std::vector<NamedSpec> out;
    FilterSpec s;
    s.border = border;
    // Non-square, non-separable integer kernel: bit-exact on integer images.
    s.kernels = {randomIntegerKernel(5, 3, rng)};
    s.output.absolute = integerImage;
    out.push_back({"int5x3", s, false});
    // Sobel magnitude: two kernels fused, integer factors in the separable mode.
    s = FilterSpec{};
    s.border = border;
    s.kernels = {sobelKernel(3, true), sobelKernel(3, false)};
    s.combine = Combine::Magnitude;
    out.push_back({"sobel-magnitude", s, true});
    // Gaussian 7x7: float weights, separable.
    s = FilterSpec{};
    s.border = border;
    s.kernels = {gaussianKernel(7, 1.5)};
    out.push_back({"gaussian7", s, true});
    if (large) return out;
    // Random float kernel 7x5 with a scale/offset and a float output.
    s = FilterSpec{};
    s.border = border;
    s.kernels = {randomKernel(7, 5, rng)};
    s.output.scale = 0.5f;
    s.output.offset = integerImage ? 3.0f : 0.125f;
    s.output.floatOutput = integerImage;
    out.push_back({"float7x5", s, false});
    // Box 5x5 of ones scaled by 1/25 (integer weights, float scale).
    s = FilterSpec{};
    s.border = border;
    s.kernels = {Kernel(5, 5, std::vector<float>(25, 1.0f))};
    s.output.scale = 1.0f / 25.0f;
    out.push_back({"box5", s, true});
    return out;
}

using Param = std::tuple<std::string, int, Depth, int>;  // mode, border index, depth, channels

class ModeMatrix : public ::testing::TestWithParam<Param> {};

TEST_P(ModeMatrix, RandomImagesMatchReference) {
    FS_SKIP_WITHOUT_CUDA();
    const auto& [mode, borderIndex, depth, channels] = GetParam();
    std::mt19937 rng = testRng();
    const Border border = matrixBorder(borderIndex, depth);
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {17, 3}, {1023, 769}};
    for (const auto& size : sizes) {
        const bool large = size.w > 100;
        const Image input = randomImage(size.w, size.h, channels, depth, rng);
        for (const NamedSpec& ns : specsFor(depth, border, rng, large)) {
            SCOPED_TRACE(ns.name + " on " + std::to_string(size.w) + "x" + std::to_string(size.h));
            Image actual;
            if (mode == "separable" && !ns.separable) {
                const auto result = runPoisoned(ns.spec, input.cview(), mode, actual);
                ASSERT_FALSE(result);
                EXPECT_NE(std::string(result.message()).find("not separable"), std::string::npos) << result.message();
                continue;
            }
            ASSERT_TRUE(runPoisoned(ns.spec, input.cview(), mode, actual));
            const Image expected = cpu::referenceFilter(ns.spec, input.cview());
            EXPECT_TRUE(matchesReference(ns.spec, input.cview(), actual, expected));
        }
    }
}

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
    const auto& [mode, borderIndex, depth, channels] = info.param;
    static const char* borders[] = {"replicate", "reflect101", "wrap", "constant", "constant0"};
    std::string name = mode + "_" + borders[borderIndex] + "_" + depthName(depth) + "_c" + std::to_string(channels);
    std::replace(name.begin(), name.end(), '-', '_');  // test names take letters, digits and '_' only
    return name;
}

INSTANTIATE_TEST_SUITE_P(Cuda, ModeMatrix,
                         ::testing::Combine(::testing::Values("global", "global-1d", "constant",
                                                              "shared-textbook", "shared", "texture", "separable",
                                                              "registers", "auto"),
                                            ::testing::Range(0, 5),
                                            ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                                            ::testing::Values(1, 3, 4)),
                         paramName);

// RGBA8 3x3 with dyadic weights whose sums fit a lane runs in exact 16-bit
// integer lanes (PreparedFilter::packedLanes): bit-identical to the
// reference, not merely within the tie tolerance, on every border, block rows
// 2 and 4, sums up to the lane limit (numerators adding to 2^8) and below it
// (a dimming blur), negative weights (biased lanes, clamped), sums that
// saturate, and magnitudes of two integer kernels (2 rows), with the zero
// taps of gradient pairs skipped and without, and separably for [1 b 1]
// gradient pairs (2 and 4 rows).
TEST(Rgba8IntegerLanes, DyadicKernelsMatchTheReferenceBitForBit) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    // Numerators adding to exactly 256: the largest sums a lane may hold.
    std::vector<float> full(9);
    int left = 256;
    for (int i = 0; i < 8; ++i) {
        const int n = std::uniform_int_distribution<int>(0, left / 3)(rng);
        full[i] = static_cast<float>(n) / 256.0f;
        left -= n;
    }
    full[8] = static_cast<float>(left) / 256.0f;
    const auto one = [](Kernel k) {
        FilterSpec spec;
        spec.kernels = {std::move(k)};
        return spec;
    };
    const auto magnitude = [](Kernel x, Kernel y) {
        FilterSpec spec;
        spec.kernels = {std::move(x), std::move(y)};
        spec.combine = Combine::Magnitude;
        return spec;
    };
    const struct {
        const char* name;
        FilterSpec spec;
        const char* kernel = "";  // what the launch report must name besides "integer lanes"
    } filters[] = {{"gaussian3", one(gaussianKernel(3, 0.0))},
                   {"sum-256", one(Kernel(3, 3, full))},
                   {"dim 9/16", one(Kernel(3, 3, std::vector<float>(9, 1.0f / 16.0f)))},
                   {"shift 0", one(Kernel(3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0}))},
                   {"laplacian4", one(laplacian4Kernel())},
                   {"sharpen", one(sharpenKernel())},
                   {"sobel-x", one(sobelKernel(3, true))},
                   {"signed /16", one(Kernel(3, 3, {-1 / 16.f, -2 / 16.f, -1 / 16.f, -2 / 16.f, 28 / 16.f, -2 / 16.f,
                                                    -1 / 16.f, -2 / 16.f, -1 / 16.f}))},
                   {"saturating", one(Kernel(3, 3, {0, 0.5f, 0, 0.5f, 0.25f, 0.5f, 0, 0.5f, 0}))},
                   {"sobel magnitude", magnitude(sobelKernel(3, true), sobelKernel(3, false)), "separable [1 2 1]"},
                   {"sobel y-x magnitude", magnitude(sobelKernel(3, false), sobelKernel(3, true)), "separable [1 2 1]"},
                   {"scharr magnitude", magnitude(scharrKernel(true), scharrKernel(false)), "gradient zeros skipped"},
                   {"prewitt magnitude", magnitude(prewittKernel(true), prewittKernel(false)), "separable [1 1 1]"},
                   {"laplacian-sharpen magnitude", magnitude(laplacian8Kernel(), sharpenKernel())}};
    const auto backend = gpu::makeCudaBackend();
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {8, 5}, {37, 11}, {1023, 769}};
    for (const auto& size : sizes) {
        const Image input = randomImage(size.w, size.h, 4, Depth::U8, rng);
        for (const auto& f : filters)
            for (int b = 0; b < 4; ++b)
                for (int rows : {0, 2, 4}) {
                    const bool twoKernels = f.spec.combine == Combine::Magnitude;
                    const bool separable = std::string(f.kernel).rfind("separable", 0) == 0;
                    if (twoKernels && !separable && rows == 4) continue;  // built for 2 rows
                    if (!kLaneRowsFour && rows == 4) continue;            // 4 rows: FS_CUDA_ALL_VARIANTS builds only
                    FilterSpec spec = f.spec;
                    spec.border = matrixBorder(b, Depth::U8);
                    const LaunchConfig config{0, 0, rows ? 4 : 0, rows, HaloScheme::Default, RadiusPath::Default};
                    SCOPED_TRACE(std::string(f.name) + " " + std::to_string(size.w) + "x" + std::to_string(size.h) +
                                 " border " + borderModeName(spec.border.mode) + " " + config.toString());
                    const LaunchReport report =
                        backend->describeLaunch(spec, size.w, size.h, Depth::U8, 4, "registers", config);
                    ASSERT_TRUE(report.ok()) << report.error;
                    EXPECT_NE(report.kernel.find("integer lanes"), std::string::npos) << report.kernel;
                    EXPECT_NE(report.kernel.find(f.kernel), std::string::npos) << report.kernel;
                    for (const char* other : {"separable", "gradient zeros skipped"}) {
                        if (std::string(f.kernel).find(other) == std::string::npos) {
                            EXPECT_EQ(report.kernel.find(other), std::string::npos) << report.kernel;
                        }
                    }
                    Image actual;
                    ASSERT_TRUE(runPoisoned(spec, input.cview(), "registers", actual, 0x5A, config));
                    EXPECT_TRUE(imagesMatch(actual, cpu::referenceFilter(spec, input.cview()), exact()));
                }
    }
}

// Weights that are not dyadic, sums too wide for a lane, an output mapping,
// or a magnitude of non-integer kernels keep the float kernel.
TEST(Rgba8IntegerLanes, OtherFiltersKeepTheFloatKernel) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    FilterSpec box, wide, scaled, blurMagnitude;
    box.kernels = {boxKernel(3)};  // 1/9: not dyadic
    wide.kernels = {Kernel(3, 3, {-120, 0, 120, -120, 0, 120, -120, 0, 120})};  // bias 255 * 360 > 2^16
    scaled.kernels = {gaussianKernel(3, 0.0)};
    scaled.output.scale = 2.0f;
    blurMagnitude.kernels = {gaussianKernel(3, 0.0), gaussianKernel(3, 0.0)};
    blurMagnitude.combine = Combine::Magnitude;
    for (const FilterSpec* spec : {&box, &wide, &scaled, &blurMagnitude}) {
        const LaunchReport report = backend->describeLaunch(*spec, 640, 480, Depth::U8, 4, "registers", LaunchConfig{});
        ASSERT_TRUE(report.ok()) << report.error;
        EXPECT_EQ(report.kernel.find("integer lanes"), std::string::npos) << report.kernel;
    }
}

// A random rank-1 kernel: the outer product of two random factors.
Kernel randomRankOneKernel(int side, std::mt19937& rng) {
    std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
    std::vector<float> row(side), column(side), w;
    for (float& v : row) v = weight(rng);
    for (float& v : column) v = weight(rng);
    for (float c : column)
        for (float r : row) w.push_back(c * r);
    return Kernel(side, side, w);
}

// Images smaller than one quad, of odd widths and heights, and wide and short.
struct QuadTestSize {
    int w, h;
};
constexpr QuadTestSize kQuadTestSizes[] = {{3, 2}, {13, 9}, {83, 61}, {1001, 37}};

// The image layouts the separable mode's quads run, and the sizes of one
// kernel they run on each.
struct QuadLayout {
    Depth depth;
    int channels;
    std::vector<int> sides;
};
const QuadLayout kSeparableQuadLayouts[] = {{Depth::U8, 1, {3, 5, 7, 9, 11, 13}},
                                            {Depth::F32, 1, {3, 5, 7, 9, 11}},
                                            {Depth::U8, 3, {3, 5, 7, 9}},
                                            {Depth::U8, 4, {3, 5, 7, 9}}};
std::string layoutName(const QuadLayout& layout) {
    if (layout.channels == 1) return std::string(depthName(layout.depth)) + " gray";
    return layout.channels == 3 ? "bgr8" : "rgba8";
}

// The separable mode's quads (one kernel 3x3 to 9x9, gray u8 to 13x13 and
// f32 to 11x11, magnitudes to 7x7, gray u8 and f32, BGR8 and RGBA8): against the reference on every border, on images
// smaller than one quad, of odd widths and heights, and wide and short, so
// the quads and their frame (the edge outputs, in leading blocks) both run;
// Sobel magnitudes and Gaussians on u8 bit for bit.
TEST(SeparableQuads, MatchTheReferenceOnEveryBorder) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (const QuadLayout& layout : kSeparableQuadLayouts)
        for (int borderIndex = 0; borderIndex < 5; ++borderIndex)
            for (const QuadTestSize& size : kQuadTestSizes) {
                const Depth depth = layout.depth;
                const Image input = randomImage(size.w, size.h, layout.channels, depth, rng);
                std::vector<std::pair<std::string, FilterSpec>> specs;
                for (int side : layout.sides) {
                    FilterSpec gaussian, random;
                    gaussian.kernels = {gaussianKernel(side, 0.0)};
                    random.kernels = {randomRankOneKernel(side, rng)};
                    random.output.absolute = depth == Depth::U8;
                    specs.push_back({"gaussian" + std::to_string(side), gaussian});
                    specs.push_back({"rank-1 " + std::to_string(side), random});
                }
                for (int side : {3, 5, 7})
                    specs.push_back({"sobel-mag" + std::to_string(side),
                                     presetSpec("sobel-mag:" + std::to_string(side))});
                for (auto& [name, spec] : specs) {
                    spec.border = matrixBorder(borderIndex, depth);
                    SCOPED_TRACE(name + " " + layoutName(layout) + " " + std::to_string(size.w) + "x" +
                                 std::to_string(size.h) + " border " + borderModeName(spec.border.mode));
                    const LaunchReport report = backend->describeLaunch(spec, size.w, size.h, depth, layout.channels,
                                                                        "separable", LaunchConfig{});
                    ASSERT_TRUE(report.ok()) << report.error;
                    EXPECT_NE(report.kernel.find("separable quads"), std::string::npos) << report.kernel;
                    Image actual;
                    ASSERT_TRUE(runPoisoned(spec, input.cview(), "separable", actual));
                    const Image expected = cpu::referenceFilter(spec, input.cview());
                    EXPECT_TRUE(matchesReference(spec, input.cview(), actual, expected));
                    // Binomial Gaussians to 9x9 have dyadic weights: both passes are exact in
                    // float on u8 images, as the reference is.
                    if (depth == Depth::U8 && name.rfind("gaussian", 0) == 0 && spec.kernels[0].width <= 9) {
                        EXPECT_TRUE(imagesMatch(actual, expected, exact()));
                    }
                }
            }
}

// `mode` filters `input` whole and in pieces of 18 rows to the same bits:
// each piece's last rows, 2 past a whole group of 4 or 8, go to a quad
// kernel's frame, so this holds only where the frame sums in the quads'
// order.
::testing::AssertionResult piecesMatchWhole(Backend& backend, const FilterSpec& spec, const Image& input,
                                            const char* mode) {
    const RunResult whole = backend.runWithLaunch(spec, input.cview(), mode, {});
    gpu::setPipelineRows(18);
    const RunResult pieces = backend.runWithLaunch(spec, input.cview(), mode, {});
    gpu::setPipelineRows(0);
    if (!whole.ok()) return ::testing::AssertionFailure() << "whole: " << whole.error;
    if (!pieces.ok()) return ::testing::AssertionFailure() << "pieces: " << pieces.error;
    return imagesMatch(pieces.output, whole.output, exact());
}

// The frame's outputs use the quads' arithmetic in the quads' order
// (piecesMatchWhole), with random float weights whose sums round
// differently in any other order.
TEST(SeparableQuads, FrameAndQuadsAgreeBitForBit) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (const QuadLayout& layout : kSeparableQuadLayouts)
        for (int side : layout.sides) {
            const Depth depth = layout.depth;
            const Image input = randomImage(301, 97, layout.channels, depth, rng);
            FilterSpec spec;
            spec.kernels = {randomRankOneKernel(side, rng)};
            spec.output.floatOutput = true;  // u8 in, f32 out: no rounding to hide a difference
            spec.border = {BorderMode::Wrap, 0.0f};
            SCOPED_TRACE(layoutName(layout) + " " + std::to_string(side) + "x" + std::to_string(side));
            EXPECT_TRUE(piecesMatchWhole(*backend, spec, input, "separable"));
            const LaunchReport report = backend->describeLaunch(spec, input.width(), input.height(), depth,
                                                                layout.channels, "separable", LaunchConfig{});
            EXPECT_NE(report.kernel.find("separable quads"), std::string::npos) << report.kernel;
        }
}

// The registers mode's quads of one dense kernel, adjacent pixels a thread
// (gray u8 and f32 5x5 to 15x15, BGR8 3x3 to 11x11, RGBA8 5x5 to 9x9):
// against the reference on every border and on images smaller than one quad,
// of odd sizes, and wide and short, so the quads and their frame both run;
// integer weights on u8 bit for bit; and an image filtered whole and in
// pieces of 18 rows alike bit for bit (the frame's sums in the quads' order).
struct RegistersQuadCase {
    Depth depth;
    int channels;
    std::vector<int> sides;
    const char* kernelName;
};
const RegistersQuadCase kRegistersQuadCases[] = {{Depth::U8, 1, {5, 7, 9, 11, 13, 15}, "adjacent u8"},
                                                 {Depth::F32, 1, {5, 7, 9, 11, 13, 15}, "adjacent f32"},
                                                 {Depth::U8, 3, {3, 5, 7, 9, 11}, "adjacent BGR8"},
                                                 {Depth::U8, 4, {5, 7, 9}, "adjacent RGBA8"}};

std::string quadCaseName(const RegistersQuadCase& layout, int side) {
    return std::string(depthName(layout.depth)) + " c" + std::to_string(layout.channels) + " " +
           std::to_string(side) + "x" + std::to_string(side);
}

TEST(RegistersQuads, MatchTheReferenceOnEveryBorder) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (const RegistersQuadCase& layout : kRegistersQuadCases)
        for (int borderIndex = 0; borderIndex < 5; ++borderIndex)
            for (const QuadTestSize& size : kQuadTestSizes) {
                const Image input = randomImage(size.w, size.h, layout.channels, layout.depth, rng);
                for (int side : layout.sides) {
                    FilterSpec dense, integer;
                    dense.kernels = {test::randomKernel(side, side, rng)};
                    integer.kernels = {randomIntegerKernel(side, side, rng)};
                    for (FilterSpec* spec : {&dense, &integer}) {
                        spec->output.absolute = layout.depth == Depth::U8;
                        spec->border = matrixBorder(borderIndex, layout.depth);
                        SCOPED_TRACE(quadCaseName(layout, side) + (spec == &integer ? " integer " : " ") +
                                     std::to_string(size.w) + "x" + std::to_string(size.h) + " border " +
                                     borderModeName(spec->border.mode));
                        const LaunchReport report = backend->describeLaunch(
                            *spec, size.w, size.h, layout.depth, layout.channels, "registers", LaunchConfig{});
                        ASSERT_TRUE(report.ok()) << report.error;
                        EXPECT_NE(report.kernel.find(layout.kernelName), std::string::npos) << report.kernel;
                        Image actual;
                        ASSERT_TRUE(runPoisoned(*spec, input.cview(), "registers", actual));
                        const Image expected = cpu::referenceFilter(*spec, input.cview());
                        EXPECT_TRUE(matchesReference(*spec, input.cview(), actual, expected));
                    }
                }
            }
}

TEST(RegistersQuads, FrameAndQuadsAgreeBitForBit) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (const RegistersQuadCase& layout : kRegistersQuadCases)
        for (int side : layout.sides) {
            const Image input = randomImage(301, 97, layout.channels, layout.depth, rng);
            FilterSpec spec;
            spec.kernels = {test::randomKernel(side, side, rng)};
            spec.output.floatOutput = true;
            spec.border = {BorderMode::Wrap, 0.0f};
            SCOPED_TRACE(quadCaseName(layout, side));
            EXPECT_TRUE(piecesMatchWhole(*backend, spec, input, "registers"));
        }
}

}  // namespace
}  // namespace fs::test
