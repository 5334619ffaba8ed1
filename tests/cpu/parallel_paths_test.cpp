// Every path of mode "parallel" against the reference, with each instruction
// set this CPU has (the SSE2 baseline always). Bit-exact where the mode
// promises it: 2-D, 1xN and Nx1 kernels always; rank-1 kernels of weights
// n / 2^shift on integer samples whose sums stay below 2^24 (binomial
// Gaussians 3/5/7, Sobel, their magnitude). Everything else within
// test::toleranceFor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpu_modes.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/presets.hpp"
#include "parallel_simd.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

using cpu::detail::simd::RowOps;

std::vector<const RowOps*> instructionSets() {
    std::vector<const RowOps*> sets{&cpu::detail::simd::baselineRowOps()};
    if (cpu::detail::simd::cpuHasAvx2Fma()) sets.push_back(&cpu::detail::simd::avx2RowOps());
    if (cpu::detail::simd::cpuHasAvx512()) sets.push_back(&cpu::detail::simd::avx512RowOps());
    return sets;
}

// Restores the CPU's own choice when a test ends.
class WithRowOps {
public:
    explicit WithRowOps(const RowOps& ops) : saved_(cpu::detail::simd::activeRowOps()) { cpu::detail::simd::useRowOps(ops); }
    ~WithRowOps() { cpu::detail::simd::useRowOps(saved_); }
    WithRowOps(const WithRowOps&) = delete;
    WithRowOps& operator=(const WithRowOps&) = delete;

private:
    const RowOps& saved_;
};

enum class Exactness { Always, DyadicU8, DyadicU8U16, Tolerance };

struct KernelCase {
    std::string name;
    std::function<FilterSpec()> make;
    Exactness exactness;
};

FilterSpec specOf(Kernel k) {
    FilterSpec s;
    s.name = "test";
    s.kernels = {std::move(k)};
    return s;
}

FilterSpec presetOf(const std::string& name) { return test::presetSpec(name); }

std::vector<KernelCase> kernelCases(std::mt19937& rng) {
    std::vector<KernelCase> cases;
    // Binomial Gaussians (OpenCV's fixed tables) and Sobel: dyadic, rank 1.
    // On u16, 65535 * sum|n| must stay below 2^24: Gaussian 3 and 5 and Sobel 3 and 5 do.
    cases.push_back({"gaussian 3", [] { return specOf(gaussianKernel(3, 0)); }, Exactness::DyadicU8U16});
    cases.push_back({"gaussian 5", [] { return specOf(gaussianKernel(5, 0)); }, Exactness::DyadicU8U16});
    cases.push_back({"gaussian 7", [] { return specOf(gaussianKernel(7, 0)); }, Exactness::DyadicU8});
    cases.push_back({"sobel-x 3", [] { return specOf(sobelKernel(3, true)); }, Exactness::DyadicU8U16});
    cases.push_back({"sobel-y 5", [] { return specOf(sobelKernel(5, false)); }, Exactness::DyadicU8U16});
    cases.push_back({"sobel-x 7", [] { return specOf(sobelKernel(7, true)); }, Exactness::DyadicU8});
    cases.push_back({"sobel magnitude 3", [] { return presetOf("sobel-mag:3"); }, Exactness::DyadicU8U16});
    // 2-D kernels: the reference's order, always exact.
    cases.push_back({"laplacian 4", [] { return specOf(laplacian4Kernel()); }, Exactness::Always});
    cases.push_back({"laplacian 8", [] { return specOf(laplacian8Kernel()); }, Exactness::Always});
    for (int size : {3, 5, 7, 15}) {
        const Kernel k = test::randomKernel(size, size, rng);
        cases.push_back({"random " + std::to_string(size), [k] { return specOf(k); }, Exactness::Always});
    }
    const Kernel first = test::randomKernel(3, 5, rng), second = test::randomKernel(7, 3, rng);
    cases.push_back({"magnitude of two random kernels", [first, second] {
                         FilterSpec s = specOf(first);
                         s.kernels.push_back(second);
                         s.combine = Combine::Magnitude;
                         return s;
                     },
                     Exactness::Always});
    // Rank 1 but not dyadic: fused two-pass sums, running column sums and runs of taps.
    for (int size : {3, 5, 7, 15, 31}) {
        cases.push_back({"box " + std::to_string(size), [size] { return specOf(boxKernel(size)); }, Exactness::Tolerance});
    }
    cases.push_back({"gaussian 15", [] { return specOf(gaussianKernel(15, 0)); }, Exactness::Tolerance});
    cases.push_back({"gaussian 31", [] { return specOf(gaussianKernel(31, 0)); }, Exactness::Tolerance});
    cases.push_back({"gaussian 9x9 sigma 2", [] { return specOf(gaussianKernel(9, 2.0)); }, Exactness::Tolerance});
    return cases;
}

std::vector<Border> bordersFor(Depth depth) {
    const float max = static_cast<float>(test::maxInputOf(depth));
    return {{BorderMode::Replicate, 0.0f},
            {BorderMode::Reflect101, 0.0f},
            {BorderMode::Wrap, 0.0f},
            {BorderMode::Constant, depth == Depth::F32 ? 0.25f : 100.0f},       // an integer sample: exact paths stay
            {BorderMode::Constant, depth == Depth::F32 ? 0.3f : 0.3f * max}};  // not one: they leave
}

// Under AddressSanitizer a path is checked once for its memory, not again for
// every border: one border, drawn from the seed, where the other builds run all.
std::vector<Border> bordersToRun(Depth depth, std::mt19937& rng) {
    std::vector<Border> all = bordersFor(depth);
    if (!test::kAddressSanitizer) return all;
    return {all[rng() % all.size()]};
}

bool mustBeExact(Exactness e, Depth depth, const Border& border) {
    if (e == Exactness::Always) return true;
    if (e == Exactness::Tolerance || depth == Depth::F32) return false;
    if (border.mode == BorderMode::Constant && border.value != std::nearbyint(border.value)) return false;
    return depth == Depth::U8 || e == Exactness::DyadicU8U16;
}

const std::vector<OutputMapping>& mappings() {
    static const std::vector<OutputMapping> m = {
        {}, {0.5f, 3.0f, true, false}, {0.25f, 128.0f, false, false}, {1.0f, 0.0f, false, true}};
    return m;
}

void compareOne(const FilterSpec& spec, const Image& input, bool exact, const std::string& what) {
    SCOPED_TRACE(what + ", border " + borderModeName(spec.border.mode) + " " + std::to_string(spec.border.value) + ", " +
                 std::to_string(input.width()) + "x" + std::to_string(input.height()) + "x" +
                 std::to_string(input.channels()) + " " + depthName(input.depth()) + ", scale " +
                 std::to_string(spec.output.scale) + (spec.output.absolute ? " abs" : "") +
                 (spec.output.floatOutput ? " -> f32" : "") + ", simd " + cpu::detail::simd::activeRowOps().isa);
    const Image expected = cpu::referenceFilter(spec, input.cview());
    const RunResult r = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
    ASSERT_TRUE(r.ok()) << r.error;
    const test::Tolerance tol =
        exact ? test::exact()
              : test::toleranceFor(expected.depth(), test::responseScale(spec, test::maxInputOf(input.depth())));
    EXPECT_TRUE(test::imagesMatch(r.output, expected, tol));
}

struct Shape {
    int width, height;
};

// The trace of one kernel, border, image shape and instruction set.
std::string caseLabel(const std::string& name, const Border& border, const Shape& shape, int channels, const RowOps& ops) {
    return name + ", border " + borderModeName(border.mode) + " " + std::to_string(border.value) + ", " +
           std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" + std::to_string(channels) +
           ", simd " + ops.isa;
}

class ParallelPaths : public ::testing::TestWithParam<Depth> {};

// Odd sizes (smaller than the kernels too), every channel count, border and
// mapping, with every instruction set.
TEST_P(ParallelPaths, SmallImagesEveryKernelBorderAndMapping) {
    const Depth depth = GetParam();
    std::mt19937 rng = test::testRng();
    const std::vector<KernelCase> cases = kernelCases(rng);
    const Shape shapes[] = {{1, 1}, {7, 3}, {1, 13}, {13, 1}, {67, 45}};
    for (const RowOps* ops : instructionSets()) {
        const WithRowOps use(*ops);
        for (const Shape& shape : shapes)
            for (int channels : {1, 3, 4}) {
                const Image input = test::randomImage(shape.width, shape.height, channels, depth, rng);
                for (const Border& border : bordersFor(depth))
                    for (const KernelCase& c : cases) {
                        FilterSpec spec = c.make();
                        spec.border = border;
                        spec.output = mappings()[rng() % mappings().size()];
                        compareOne(spec, input, mustBeExact(c.exactness, depth, border), c.name);
                    }
            }
    }
}

// Wide rows: chunks read in place (f32), the running column sums across a
// tile's rows, several tiles on several threads. The mode cuts any height
// into about four tiles a thread, so 193 rows take every path 769 would.
TEST_P(ParallelPaths, LargeOddImages) {
    const Depth depth = GetParam();
    std::mt19937 rng = test::testRng();
    const std::vector<KernelCase> cases = kernelCases(rng);
    const std::vector<Border> borders = bordersFor(depth);
    for (int channels : {1, 3, 4}) {
        const Image input = test::randomImage(1023, 193, channels, depth, rng);
        for (const KernelCase& c : cases) {
            if (c.name == "gaussian 31" || c.name == "box 31" || c.name == "random 15" || c.name == "gaussian 15")
                continue;  // the reference takes seconds on these
            const Border border = borders[rng() % borders.size()];
            FilterSpec spec = c.make();
            spec.border = border;
            spec.output = mappings()[rng() % mappings().size()];
            compareOne(spec, input, mustBeExact(c.exactness, depth, border), c.name);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Depths, ParallelPaths, ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                         [](const ::testing::TestParamInfo<Depth>& p) { return std::string(depthName(p.param)); });

// Large kernels on a wide image, once each: the tap runs of box 31 and the
// halo of 31-wide chunks.
TEST(ParallelPathsLargeKernels, ThirtyOneWideOnAWideImage) {
    std::mt19937 rng = test::testRng();
    for (Depth depth : {Depth::U8, Depth::F32}) {
        const Image input = test::randomImage(1500, 40, 3, depth, rng);
        for (const Kernel& k : {boxKernel(31), gaussianKernel(31, 0), gaussianKernel(25, 0)}) {
            FilterSpec spec = specOf(k);
            spec.border = {BorderMode::Reflect101, 0.0f};
            compareOne(spec, input, false, "large separable " + std::to_string(k.width));
        }
    }
}

// Rows wider than a chunk: inner chunks read integer and float rows in place
// (converted as the column pass reads them), edge chunks from the ring; every
// border, the constant one with integer and fractional values.
TEST(ParallelPathsWideRows, InPlaceChunksEveryBorder) {
    std::mt19937 rng = test::testRng();
    const std::vector<KernelCase> cases = kernelCases(rng);
    for (const RowOps* ops : instructionSets()) {
        const WithRowOps use(*ops);
        for (Depth depth : {Depth::U8, Depth::U16, Depth::F32})
            for (int channels : {1, 3, 4}) {
                const Image input = test::randomImage(2100 + channels, 9, channels, depth, rng);
                for (const Border& border : bordersToRun(depth, rng))
                    for (const KernelCase& c : cases) {
                        if (c.name.find("31") != std::string::npos || c.name.find("15") != std::string::npos) continue;
                        FilterSpec spec = c.make();
                        spec.border = border;
                        spec.output = mappings()[rng() % mappings().size()];
                        compareOne(spec, input, mustBeExact(c.exactness, depth, border), c.name);
                    }
            }
    }
}

// Float outputs of 64 MB and more are written with non-temporal stores from
// the first aligned sample of each chunk on; odd widths move every row start.
TEST(ParallelPathsLargeOutputs, StreamedFloatStores) {
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(4099, 4097, 1, Depth::F32, rng);
    for (const RowOps* ops : instructionSets()) {
        const WithRowOps use(*ops);
        compareOne(specOf(laplacian4Kernel()), input, true, "laplacian 4, streamed");
        compareOne(specOf(sobelKernel(3, true)), input, false, "sobel-x 3, streamed");
    }
}

// Rank-1 kernels whose products overflow (docs/cli.md "NaN and infinities": 255 x 3e38
// gives NaN) must overflow where the reference does, NaN for NaN.
TEST(ParallelPathsOverflow, HugeRankOneWeightsOverflowAsTheReferenceDoes) {
    std::mt19937 rng = test::testRng();
    for (Depth depth : {Depth::U8, Depth::F32}) {
        const Image input = test::randomImage(70, 20, 3, depth, rng);
        for (const Kernel& k : {Kernel::outer({0.5f, 1, 0.5f}, {3e38f, 0, -3e38f}), Kernel::outer({1, 1, 1}, {3e38f, 1, 3e38f})}) {
            FilterSpec spec = specOf(k);
            spec.output.floatOutput = true;
            const Image expected = cpu::referenceFilter(spec, input.cview());
            const RunResult r = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
            ASSERT_TRUE(r.ok()) << r.error;
            long long differ = 0;
            for (int y = 0; y < input.height(); ++y)
                for (int i = 0; i < input.width() * input.channels(); ++i) {
                    const float a = r.output.cview().row<float>(y)[i], e = expected.cview().row<float>(y)[i];
                    if (!(a == e || (std::isnan(a) && std::isnan(e)))) ++differ;
                }
            EXPECT_EQ(differ, 0) << depthName(depth);
        }
    }
}

// u8 to u8, one dyadic rank-1 kernel, no mapping: the 16-bit integer path
// (wrapping lanes, one rounding shift). Covers unsigned lanes past 32767
// (saturated to 255), signed lanes with negative sums and round-half-even
// shifts, 1xN and Nx1, 32-bit row sums (Gaussian 7, Sobel 7), and a kernel
// whose column sums leave 16 bits (the float path), every border and
// instruction set.
TEST(ParallelPathsIntegerU8, BitExactEveryBorderChannelsAndSize) {
    std::mt19937 rng = test::testRng();
    const std::vector<std::pair<std::string, Kernel>> kernels = {
        {"gaussian 3", gaussianKernel(3, 0)},
        {"gaussian 5", gaussianKernel(5, 0)},
        {"gaussian 7", gaussianKernel(7, 0)},
        {"sobel-x 3", sobelKernel(3, true)},
        {"sobel-y 5", sobelKernel(5, false)},
        {"scharr-x", scharrKernel(true)},
        {"3x3 of ones (sums to 2295)", Kernel::outer({1, 1, 1}, {1, 1, 1})},
        {"1x3 [1 2 1]/4", Kernel::outer({1.0f}, {0.25f, 0.5f, 0.25f})},
        {"5x1 binomial", Kernel::outer({0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f}, {1.0f})},
        {"sobel-x 3 / 8", Kernel::outer({0.25f, 0.5f, 0.25f}, {-0.5f, 0.0f, 0.5f})},
        {"3x5 of 16 (sums to 61200)", Kernel::outer({16, 16, 16}, {1, 1, 1, 1, 1})},
        {"sobel-x 7", sobelKernel(7, true)},
        {"column sums past 16 bits", Kernel::outer({100, 200, 100}, {1, 1, 1})},
    };
    // 513x511: several tiles a thread; 1023x67: rows of more than one 2K-sample chunk.
    const Shape shapes[] = {{1, 1}, {7, 3}, {513, 511}, {1023, 67}};
    for (const Shape& shape : shapes)
        for (int channels : {1, 3, 4}) {
            const Image input = test::randomImage(shape.width, shape.height, channels, Depth::U8, rng);
            for (const Border& border : bordersToRun(Depth::U8, rng))
                for (const auto& [name, kernel] : kernels) {
                    FilterSpec spec = specOf(kernel);
                    spec.border = border;
                    const Image expected = cpu::referenceFilter(spec, input.cview());
                    const bool exact = border.value == std::nearbyint(border.value);
                    for (const RowOps* ops : instructionSets()) {
                        const WithRowOps use(*ops);
                        SCOPED_TRACE(caseLabel(name, border, shape, channels, *ops));
                        const RunResult r = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
                        ASSERT_TRUE(r.ok()) << r.error;
                        const test::Tolerance tol =
                            exact ? test::exact() : test::toleranceFor(Depth::U8, test::responseScale(spec, 255.0));
                        EXPECT_TRUE(test::imagesMatch(r.output, expected, tol));
                    }
                }
        }
}

// u8 to u8, one rank-1 kernel of weights no exact path takes (Gaussians of
// any sigma, derivative-of-Gaussian lobes, lopsided kernels): fixed-point
// weights whose bound (parallelFixedPointBound) is below 1 level, so every
// sample is within 1 level of the reference. Also the kernels whose sums
// leave too few fraction bits: they keep the float passes.
std::vector<std::pair<std::string, Kernel>> fixedPointKernels() {
    std::vector<std::pair<std::string, Kernel>> kernels;
    for (int size : {3, 5, 7, 9, 11, 13, 15, 21, 31})
        for (double sigma : {0.0, 0.45, 1.3, size / 4.0, 7.3}) {
            if (sigma == 0.0 && size <= 9) continue;  // binomial: exact, never fixed point
            char name[64];
            std::snprintf(name, sizeof name, "gaussian %d sigma %.2f", size, sigma);
            kernels.push_back({name, gaussianKernel(size, sigma)});
        }
    kernels.push_back({"5x9 of two Gaussians", Kernel::outer(gaussianVector(5, 1.1), gaussianVector(9, 2.6))});
    std::vector<float> derivative = gaussianVector(7, 1.4);  // x g(x): antisymmetric, negative lobe
    for (int i = 0; i < 7; ++i) derivative[i] *= static_cast<float>(i - 3) / 3.0f;
    kernels.push_back({"7x7 derivative of Gaussian", Kernel::outer(gaussianVector(7, 1.4), derivative)});
    kernels.push_back({"lopsided 3x5", Kernel::outer({0.2f, 0.7f, 0.1f}, {0.05f, 0.3f, 0.4f, 0.15f, 0.1f})});
    kernels.push_back({"sharpening 3x3 rank 1", Kernel::outer({-0.3f, 1.6f, -0.3f}, {-0.3f, 1.6f, -0.3f})});
    return kernels;
}

TEST(ParallelPathsFixedPointU8, WithinOneLevelEveryBorderChannelsSigmaAndSize) {
    std::mt19937 rng = test::testRng();
    const std::vector<std::pair<std::string, Kernel>> kernels = fixedPointKernels();
    // 1023x23: rows of more than one 2K-sample chunk; 67x45 for the largest kernels.
    const Shape shapes[] = {{1, 1}, {7, 3}, {1, 13}, {67, 45}, {1023, 23}};
    for (const Shape& shape : shapes)
        for (int channels : {1, 3, 4}) {
            const Image input = test::randomImage(shape.width, shape.height, channels, Depth::U8, rng);
            for (const Border& border : bordersToRun(Depth::U8, rng))
                for (const auto& [name, kernel] : kernels) {
                    if (shape.width > 100 && kernel.width > 15) continue;  // the reference takes seconds there
                    const std::optional<double> bound = cpu::detail::parallelFixedPointBound(kernel);
                    ASSERT_TRUE(bound.has_value()) << name << " does not take the fixed-point path";
                    ASSERT_LT(*bound, 1.0) << name;
                    FilterSpec spec = specOf(kernel);
                    spec.border = border;
                    const Image expected = cpu::referenceFilter(spec, input.cview());
                    for (const RowOps* ops : instructionSets()) {
                        const WithRowOps use(*ops);
                        SCOPED_TRACE(caseLabel(name, border, shape, channels, *ops));
                        const RunResult r = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
                        ASSERT_TRUE(r.ok()) << r.error;
                        EXPECT_TRUE(test::imagesMatch(r.output, expected, test::Tolerance{1.0, 0.0}));
                    }
                }
        }
}

// Flat areas stay flat: each pass's weights sum to exactly one, so a constant
// image comes back unchanged, where one rounding off would shift it a level.
TEST(ParallelPathsFixedPointU8, ConstantImagesComeBackUnchanged) {
    for (const auto& [name, kernel] : fixedPointKernels()) {
        if (name.rfind("gaussian", 0) != 0) continue;
        for (int value : {0, 1, 127, 128, 254, 255}) {
            Image input(40, 9, 3, Depth::U8);
            for (int y = 0; y < 9; ++y)
                for (int i = 0; i < 120; ++i) input.view().row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(value);
            const RunResult r = cpu::makeCpuBackend()->run(specOf(kernel), input.cview(), "parallel");
            ASSERT_TRUE(r.ok()) << r.error;
            EXPECT_TRUE(test::imagesMatch(r.output, input, test::exact())) << name << ", value " << value;
        }
    }
}

// Weights so large, or lobes so strong, that 16-bit weights cannot hold the
// result within 1 level: the float passes, within the usual tolerance. Boxes
// too large for 16-bit sums never take fixed point either (32-bit box sums).
TEST(ParallelPathsFixedPointU8, LargeSumsKeepTheFloatPasses) {
    EXPECT_FALSE(cpu::detail::parallelFixedPointBound(boxKernel(17)).has_value());
    EXPECT_FALSE(cpu::detail::parallelFixedPointBound(boxKernel(31)).has_value());
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(131, 37, 3, Depth::U8, rng);
    for (const Kernel& k : {Kernel::outer({100.3f, -200.7f, 100.1f}, {1.1f, -1.3f, 1.7f}),
                            Kernel::outer({-40.1f, 81.3f, -40.1f}, {-40.1f, 81.3f, -40.1f})}) {
        EXPECT_FALSE(cpu::detail::parallelFixedPointBound(k).has_value());
        FilterSpec spec = specOf(k);
        const Image expected = cpu::referenceFilter(spec, input.cview());
        const RunResult r = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_TRUE(test::imagesMatch(r.output, expected, test::toleranceFor(Depth::U8, test::responseScale(spec, 255.0))));
    }
}

// The integer sums of an N x N box, rounded half to even from S / N^2 in
// integers: the correctly rounded result. The sums come from a summed-area
// table of the border-padded image, so large boxes cost no more than small.
Image exactBox(const Image& input, int size, const Border& border) {
    const ConstImageView in = input.cview();
    const int w = in.width, h = in.height, ch = in.channels, r = size / 2, area = size * size;
    const int pw = w + 2 * r, ph = h + 2 * r;
    // table[(y * (pw + 1) + x) * ch + c]: the sum of padded samples above and left of (x, y).
    std::vector<long long> table(static_cast<std::size_t>(ph + 1) * (pw + 1) * ch, 0);
    const auto at = [&](int x, int y, int c) -> long long& {
        return table[(static_cast<std::size_t>(y) * (pw + 1) + x) * ch + c];
    };
    for (int y = 0; y < ph; ++y)
        for (int x = 0; x < pw; ++x)
            for (int c = 0; c < ch; ++c) {
                const int sx = borderIndex(x - r, w, border.mode), sy = borderIndex(y - r, h, border.mode);
                const long long v = sx < 0 || sy < 0 ? static_cast<long long>(border.value) : in.row<std::uint8_t>(sy)[sx * ch + c];
                at(x + 1, y + 1, c) = v + at(x, y + 1, c) + at(x + 1, y, c) - at(x, y, c);
            }
    Image out(w, h, ch, Depth::U8);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < ch; ++c) {
                const long long sum = at(x + size, y + size, c) - at(x, y + size, c) - at(x + size, y, c) + at(x, y, c);
                long long q = sum / area;
                const long long twice = 2 * (sum % area);
                if (twice > area || (twice == area && (q & 1))) ++q;
                out.view().row<std::uint8_t>(y)[x * ch + c] = static_cast<std::uint8_t>(std::min(q, 255LL));
            }
    return out;
}

// u8 boxes: integer sums both ways (running over the rows from 5 up) and one
// float multiply; bit for bit the correctly rounded box, within the
// tolerance of the reference (which adds N^2 rounded products). 17 and 31:
// sums past 16 bits, in 32 (BoxSumFilter), sliding along the rows too.
TEST(ParallelPathsIntegerU8, BoxesAreCorrectlyRounded) {
    std::mt19937 rng = test::testRng();
    // 1023 x 9 and 1023 x 131: boxes over rows of more than one 2K-sample chunk;
    // 211 x 45: several tiles a thread for the large boxes.
    const Shape shapes[] = {{1, 1}, {7, 3}, {1023, 9}, {211, 45}, {513, 511}, {1023, 131}};
    for (const Shape& shape : shapes)
        for (int channels : {1, 3, 4}) {
            const Image input = test::randomImage(shape.width, shape.height, channels, Depth::U8, rng);
            for (const Border& border : bordersToRun(Depth::U8, rng)) {
                if (border.value != std::nearbyint(border.value)) continue;
                for (int size : {3, 5, 15, 17, 31}) {
                    // The reference's N^2 products: 1023x131 covers 15, 211x45 the larger ones.
                    if (size == 15 && shape.height > 200) continue;
                    if (size > 15 && shape.width * shape.height > 211 * 45) continue;
                    FilterSpec spec = specOf(boxKernel(size));
                    spec.border = border;
                    const Image correct = exactBox(input, size, border);
                    const Image reference = cpu::referenceFilter(spec, input.cview());
                    for (const RowOps* ops : instructionSets()) {
                        const WithRowOps use(*ops);
                        SCOPED_TRACE("box " + std::to_string(size) + ", border " + borderModeName(border.mode) + ", " +
                                     std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                                     std::to_string(channels) + ", simd " + ops->isa);
                        const RunResult r = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
                        ASSERT_TRUE(r.ok()) << r.error;
                        EXPECT_TRUE(test::imagesMatch(r.output, correct, test::exact()));
                        EXPECT_TRUE(test::imagesMatch(r.output, reference, test::toleranceFor(Depth::U8, 1.0)));
                    }
                }
            }
        }
}

// Float boxes of 9 rows and more: column sums from suffix and prefix sums
// over blocks of K rows (FloatBoxFilter), tiles starting mid-block, kernels
// taller and wider than the image, every border, channel count and mapping;
// within the tolerance of the reference.
TEST(ParallelPathsFloatBoxes, EveryBorderShapeAndMapping) {
    std::mt19937 rng = test::testRng();
    const std::vector<std::pair<int, int>> sizes = {{9, 9}, {15, 15}, {31, 31}, {3, 11}, {31, 9}, {13, 17}};
    // 101x40: several tiles a thread and blocks cut by tile edges; 1x13 and 5x3: smaller than the kernels.
    const Shape shapes[] = {{1, 13}, {5, 3}, {67, 20}, {101, 40}};
    for (const RowOps* ops : instructionSets()) {
        const WithRowOps use(*ops);
        for (const Shape& shape : shapes)
            for (int channels : {1, 3, 4}) {
                const Image input = test::randomImage(shape.width, shape.height, channels, Depth::F32, rng);
                for (const Border& border : bordersToRun(Depth::F32, rng))
                    for (const auto& [width, height] : sizes) {
                        FilterSpec spec = specOf(Kernel(width, height, std::vector<float>(static_cast<std::size_t>(width * height),
                                                                                          1.0f / static_cast<float>(width * height))));
                        spec.border = border;
                        spec.output = mappings()[rng() % mappings().size()];
                        compareOne(spec, input, false, "float box " + std::to_string(width) + "x" + std::to_string(height));
                    }
            }
    }
}

// The batch runner caps the threads per job; results must not depend on it.
// Float boxes too: their blocks of K rows are counted from the image's first
// row, not from a tile's.
TEST(ParallelPathsThreads, SameResultOnOneThreadAndOnAll) {
    std::mt19937 rng = test::testRng();
    for (Depth depth : {Depth::U8, Depth::F32}) {
        const Image input = test::randomImage(300, 200, 3, depth, rng);
        for (const Kernel& k : {gaussianKernel(7, 0), boxKernel(15)}) {
            FilterSpec spec = specOf(k);
            const RunResult all = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
            cpu::detail::parallelThreadLimit() = 1;
            const RunResult one = cpu::makeCpuBackend()->run(spec, input.cview(), "parallel");
            cpu::detail::parallelThreadLimit() = 0;
            ASSERT_TRUE(all.ok() && one.ok());
            EXPECT_TRUE(test::imagesMatch(all.output, one.output, test::exact())) << depthName(depth) << " " << k.width;
        }
    }
}

}  // namespace
}  // namespace fs
