// The tensor mode against fs::cpu::referenceFilter within its documented
// bound (below and gpu/README.md): every border x depth x channel count, odd
// and one-pixel images, one and several blocks each way, kernel sides 3..63,
// square and not, magnitudes, output mappings; photographs; the pipelined
// host path; non-finite samples; integer kernels on 8-bit images, which TF32
// computes exactly; its refusals. Skips without a device or on one older
// than compute capability 8.0 (the mode says why); FS_TEST_SEED=N replays a run.
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include "fs/gpu/cuda_options.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"
#include "launch.hpp"

namespace fs::test {
namespace {

// TF32 keeps 10 explicit mantissa bits and rounds to nearest, so a weight or
// a sample changes by at most 2^-11 of itself and a product by about 2^-10.
// On 8-bit images the samples are exact and each weight runs as two TF32
// parts, which leave it off by at most 2^-22 of itself. The products are
// added in FP32 in another order than the reference's, which the direct
// modes' own bound covers. Allowed: |tensor - reference| <= e x |scale| x
// sum |w| |x| over the sample's window, plus that bound; e = 1e-3, and 1e-6
// on 8-bit images.
constexpr double kTensorWindowError = 1e-3, kTensorWindowErrorU8 = 1e-6;

::testing::AssertionResult withinTensorBound(const FilterSpec& spec, ConstImageView input, const Image& actual,
                                             double* worst = nullptr) {
    const double e = input.depth == Depth::U8 ? kTensorWindowErrorU8 : kTensorWindowError;
    return withinApproximateBound(spec, input, actual, {0.0, e}, worst);
}

const std::string& tensorId() {
    static const std::string id = gpu::tensorMode().id;
    return id;
}

// The mode lists itself unavailable on devices without TF32 tensor cores.
#define FS_SKIP_WITHOUT_TENSOR_CORES()                                                         \
    do {                                                                                       \
        FS_SKIP_WITHOUT_CUDA();                                                                \
        for (const ModeInfo& m : gpu::makeCudaBackend()->modes())                              \
            if (m.id == tensorId() && !m.available) GTEST_SKIP() << m.unavailableReason;       \
    } while (0)

// Random positive weights adding to one, with a random sign pattern on a quarter of them.
Kernel normalisedKernel(int w, int h, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(0.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    double sum = 0.0;
    for (float& x : v) sum += (x = d(rng));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(v[i] / sum) * (i % 4 == 3 ? -0.5f : 1.0f);
    return Kernel(w, h, std::move(v));
}

struct Case {
    std::string name;
    FilterSpec spec;
};

std::vector<Case> casesFor(int width, Depth depth, Border border, std::mt19937& rng) {
    const bool integerImage = depth != Depth::F32;
    std::vector<Case> out;
    auto add = [&](const std::string& name, std::vector<Kernel> kernels, auto&& tweak) {
        FilterSpec s;
        s.kernels = std::move(kernels);
        s.border = border;
        tweak(s);
        out.push_back({name, s});
    };
    const auto none = [](FilterSpec&) {};
    add("dense3", {randomKernel(3, 3, rng)}, none);
    add("int5x3", {randomIntegerKernel(5, 3, rng)}, [&](FilterSpec& s) { s.output.absolute = integerImage; });
    add("normalised63", {normalisedKernel(63, 63, rng)}, none);
    if (width < 100) return out;
    add("dense15 mapped", {randomKernel(15, 15, rng)}, [&](FilterSpec& s) {
        s.output.scale = 0.05f;
        s.output.offset = integerImage ? 100.0f : 0.125f;
        s.output.floatOutput = integerImage;
    });
    add("normalised31", {normalisedKernel(31, 31, rng)}, none);
    add("7x21", {normalisedKernel(7, 21, rng)}, none);
    add("magnitude 9x9 + 9x9", {randomKernel(9, 9, rng), randomKernel(9, 9, rng)},
        [](FilterSpec& s) { s.combine = Combine::Magnitude; });
    return out;
}

using Param = std::tuple<int, Depth, int>;  // border index, depth, channels

class TensorMatrix : public ::testing::TestWithParam<Param> {};

TEST_P(TensorMatrix, MatchesTheReferenceWithinItsBound) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    const auto& [borderIndex, depth, channels] = GetParam();
    std::mt19937 rng = testRng();
    const Border border = matrixBorder(borderIndex, depth);
    // 1x1 and 17x3: one block; 131x67: 3 blocks across and 2 to 9 down;
    // 301x97: a last block 45 columns wide.
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {17, 3}, {131, 67}, {301, 97}};
    double worst = 0.0;
    for (const auto& size : sizes) {
        const Image input = randomImage(size.w, size.h, channels, depth, rng);
        for (const Case& c : casesFor(size.w, depth, border, rng)) {
            SCOPED_TRACE(c.name + " on " + std::to_string(size.w) + "x" + std::to_string(size.h));
            Image actual;
            ASSERT_TRUE(runPoisoned(c.spec, input.cview(), tensorId(), actual));
            EXPECT_TRUE(withinTensorBound(c.spec, input.cview(), actual, &worst));
        }
    }
    std::printf("  worst f32 error / bound: %.3g\n", worst);
}

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
    const auto& [borderIndex, depth, channels] = info.param;
    static const char* borders[] = {"replicate", "reflect101", "wrap", "constant", "constant0"};
    return std::string(borders[borderIndex]) + "_" + depthName(depth) + "_c" + std::to_string(channels);
}

INSTANTIATE_TEST_SUITE_P(Cuda, TensorMatrix,
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                                            ::testing::Values(1, 3, 4)),
                         paramName);

// Every odd side 3..63 (the band grows from 3 to 10 chunks of 8 columns).
TEST(TensorMode, EveryKernelSideFrom3To63) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    std::mt19937 rng = testRng();
    const Image gray = randomImage(97, 61, 1, Depth::F32, rng);
    const Image bgr = randomImage(83, 45, 3, Depth::U8, rng);
    double worst = 0.0;
    for (int side = 3; side <= kMaxKernelSize; side += 2) {
        SCOPED_TRACE("side " + std::to_string(side));
        FilterSpec s;
        s.kernels = {randomKernel(side, side, rng)};
        s.border.mode = side % 4 == 1 ? BorderMode::Reflect101 : BorderMode::Replicate;
        for (const Image* input : {&gray, &bgr}) {
            Image actual;
            ASSERT_TRUE(runPoisoned(s, input->cview(), tensorId(), actual));
            EXPECT_TRUE(withinTensorBound(s, input->cview(), actual, &worst));
        }
    }
    std::printf("  worst f32 error / bound: %.3g\n", worst);
}

// Photographs, with the kernels a class would try: a dense Gaussian and a
// random 15x15 on the colour one, a 31x31 box on the gray one.
TEST(TensorMode, PhotographsMatchTheReferenceWithinItsBound) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    std::mt19937 rng = testRng();
    const Image coffee = loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/coffee.ppm");
    const Image camera = loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/camera.pgm");
    ASSERT_FALSE(coffee.empty());
    ASSERT_FALSE(camera.empty());
    FilterSpec gaussian = presetSpec("gaussian:15:3");
    FilterSpec dense;
    dense.kernels = {normalisedKernel(15, 15, rng)};
    FilterSpec box = presetSpec("box:31");
    for (const auto& [spec, input] : {std::pair{&gaussian, &coffee}, {&dense, &coffee}, {&box, &camera}}) {
        SCOPED_TRACE(spec->name);
        Image actual;
        ASSERT_TRUE(runPoisoned(*spec, input->cview(), tensorId(), actual));
        EXPECT_TRUE(withinTensorBound(*spec, input->cview(), actual));
    }
}

// Small integer weights and 8-bit samples are TF32 numbers (the weights' lo
// parts are 0), and their sums stay far below 2^24: the tensor cores add
// them exactly, as the reference does.
TEST(TensorMode, IntegerKernelsOnEightBitImagesAreExact) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    std::mt19937 rng = testRng();
    const Image input = randomImage(211, 77, 4, Depth::U8, rng);
    std::uniform_int_distribution<int> sign(-1, 1);
    std::vector<float> ternary(15 * 15);
    for (float& w : ternary) w = static_cast<float>(sign(rng));
    FilterSpec dense;
    dense.kernels = {Kernel(15, 15, ternary)};
    for (const FilterSpec& base : {dense, presetSpec("laplacian-8"), presetSpec("sobel-mag:3")}) {
        FilterSpec s = base;
        s.output.absolute = true;
        Image actual;
        ASSERT_TRUE(runPoisoned(s, input.cview(), tensorId(), actual));
        EXPECT_TRUE(imagesMatch(actual, cpu::referenceFilter(s, input.cview()), exact())) << s.name;
    }
}

// The host path in many pieces (each piece's rows and halo from a strip of the
// source), a wrap border reading its halo across the top and bottom.
TEST(TensorMode, PipelinedPiecesMatchTheReference) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    std::mt19937 rng = testRng();
    const Image input = randomImage(1201, 907, 1, Depth::F32, rng);
    FilterSpec s;
    s.kernels = {randomKernel(17, 17, rng)};
    s.border.mode = BorderMode::Wrap;
    for (int rows : {0, 100, 37}) {
        SCOPED_TRACE("piece rows " + std::to_string(rows));
        gpu::setPipelineRows(rows);
        const RunResult r = gpu::makeCudaBackend()->run(s, input.cview(), tensorId());
        gpu::setPipelineRows(0);
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_TRUE(withinTensorBound(s, input.cview(), r.output));
    }
}

// A zero band entry times a non-finite sample would make NaN across 16
// columns: such tiles are filtered directly, so non-finite outputs are
// exactly the reference's (the kernel's window around them) and the rest
// of the image stays within the bound.
TEST(TensorMode, NonFiniteSamplesStayLocalAsInTheReference) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    std::mt19937 rng = testRng();
    Image input = randomImage(700, 300, 1, Depth::F32, rng);
    input.view().row<float>(150)[350] = std::numeric_limits<float>::quiet_NaN();
    input.view().row<float>(20)[40] = std::numeric_limits<float>::infinity();
    FilterSpec s;
    s.kernels = {normalisedKernel(15, 15, rng)};
    s.border.mode = BorderMode::Reflect101;
    Image actual;
    ASSERT_TRUE(runPoisoned(s, input.cview(), tensorId(), actual));
    const Image expected = cpu::referenceFilter(s, input.cview());
    const Image local = absResponse(s, input.cview());
    int nonFinite = 0;
    for (int y = 0; y < 300; ++y)
        for (int x = 0; x < 700; ++x) {
            const float a = actual.cview().row<float>(y)[x], e = expected.cview().row<float>(y)[x];
            ASSERT_EQ(std::isnan(a), std::isnan(e)) << "at (" << x << "," << y << ")";
            ASSERT_EQ(std::isinf(a), std::isinf(e)) << "at (" << x << "," << y << ")";
            if (!std::isfinite(e)) ++nonFinite;
            else ASSERT_NEAR(a, e, 2e-3 * local.cview().row<float>(y)[x] + 1e-6) << "at (" << x << "," << y << ")";
        }
    EXPECT_GE(nonFinite, 2 * 15 * 15 - 15 * 8);  // the NaN's window and most of the edge infinity's
}

TEST(TensorMode, RefusesLaunchKnobs) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    auto backend = gpu::makeCudaBackend();
    const Image input(16, 16, 1, Depth::F32);
    FilterSpec s;
    s.kernels = {Kernel(3, 3, std::vector<float>(9, 1.0f))};
    LaunchConfig block;
    block.blockX = 32;
    block.blockY = 8;
    const RunResult knob = backend->runWithLaunch(s, input.cview(), tensorId(), block);
    ASSERT_FALSE(knob.ok());
    EXPECT_NE(knob.error.find("no launch knobs"), std::string::npos) << knob.error;
}

}  // namespace
}  // namespace fs::test
