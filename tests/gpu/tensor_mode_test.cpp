// The tensor mode against fs::cpu::referenceFilter within its documented
// bound (below and gpu/README.md): every border x depth x channel count, odd
// and one-pixel images, one and several blocks each way, kernel sides 3..63,
// square and not, magnitudes, output mappings; photographs; the pipelined
// host path; non-finite samples; integer kernels on 8-bit images, which TF32
// computes exactly; its refusals. Skips without a device or on one older
// than compute capability 8.0 (the mode says why); FS_TEST_SEED=N replays a run.
#include <utility>

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

ApproximateBound tensorBound(Depth inputDepth) {
    return {0.0, inputDepth == Depth::U8 ? kTensorWindowErrorU8 : kTensorWindowError};
}

::testing::AssertionResult withinTensorBound(const FilterSpec& spec, ConstImageView input, const Image& actual) {
    return withinApproximateBound(spec, input, actual, tensorBound(input.depth));
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

class TensorMatrix : public ::testing::TestWithParam<BorderDepthChannels> {};

TEST_P(TensorMatrix, MatchesTheReferenceWithinItsBound) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    checkApproximateMatrix(tensorId(), GetParam(), tensorBound);
}

INSTANTIATE_TEST_SUITE_P(Cuda, TensorMatrix,
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                                            ::testing::Values(1, 3, 4)),
                         borderDepthChannelsName);

// Every odd side 3..63 (the band grows from 3 to 10 chunks of 8 columns).
TEST(TensorMode, EveryKernelSideFrom3To63) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    checkEveryKernelSide(tensorId(), tensorBound);
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
    checkIntegerKernelsExact(tensorId(), {"laplacian-8", "sobel-mag:3"});
}

// The host path in pieces, each piece's rows and halo from a strip of the source.
TEST(TensorMode, PipelinedPiecesMatchTheReference) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    checkPipelinedPieces(tensorId(), tensorBound);
}

// A zero band entry times a non-finite sample would make NaN across 16
// columns: such tiles are filtered directly, so non-finite outputs are
// exactly the reference's (the kernel's window around them) and the rest
// of the image stays within the bound.
TEST(TensorMode, NonFiniteSamplesStayLocalAsInTheReference) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    checkNonFiniteStaysLocal(tensorId(), /*hugeFinite=*/false,
                             [](double, double window) { return 2e-3 * window + 1e-6; });
}

TEST(TensorMode, RefusesLaunchKnobs) {
    FS_SKIP_WITHOUT_TENSOR_CORES();
    checkLaunchKnobsRefused(tensorId());
}

}  // namespace
}  // namespace fs::test
