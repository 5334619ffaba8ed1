// The fft mode against fs::cpu::referenceFilter within its documented
// tolerance (below and gpu/README.md): every border x depth x channel count,
// odd and one-pixel images, single and several tiles each way, kernel sides
// 3..63, square and not, magnitudes, output mappings; the pipelined host
// path with many pieces; non-finite samples (filtered directly, as the
// reference does); the spectrum cache; memory pressure; its refusals.
// Skips without a device; FS_TEST_SEED=N replays a run.
#include <cmath>

#include "fs/gpu/engine.hpp"
#include "gpu_test_support.hpp"
#include "launch.hpp"

namespace fs::test {
namespace {

// The fft mode's tolerance: each tile goes through three single-precision
// transforms (the kernel's, the tile's, the inverse) whose rounding error
// grows like eps x log2(n^2) (n <= 512: 18) relative to the tile's largest
// response, so an output may err by up to about 3 x 18 x 6e-8 = 3e-6 of
// sum|w| x max|x| (the largest response any input could give). Allowed:
//   |fft - reference| <= 1e-5 x |scale| x sum_k sum|w_k| x max|x|
// (max|x| over the image and a constant border's value) plus the direct
// modes' own bound for the reference's float sums (gpu_test_support.hpp).
// Integer outputs: equal, or off by one where the reference's unrounded
// value lies within that bound of a .5 tie; so integer kernels on integer
// images stay exact while the bound is below 0.5.
constexpr double kFftRelativeError = 1e-5;

// The policy above, whatever the depth.
ApproximateBound fftBound(Depth) { return {kFftRelativeError, 0.0}; }

::testing::AssertionResult withinFftTolerance(const FilterSpec& spec, ConstImageView input, const Image& actual) {
    return withinApproximateBound(spec, input, actual, fftBound(input.depth));
}

const std::string& fftId() {
    static const std::string id = gpu::fftMode().id;
    return id;
}

// The fft mode found through its role; skips where cuFFT is missing (the mode says why).
#define FS_SKIP_WITHOUT_FFT()                                                                              \
    do {                                                                                                   \
        FS_SKIP_WITHOUT_CUDA();                                                                            \
        Image probe(1, 1, 1, Depth::F32);                                                                  \
        FilterSpec box;                                                                                    \
        box.kernels = {Kernel(3, 3, std::vector<float>(9, 1.0f))};                                         \
        const RunResult r = gpu::makeCudaBackend()->run(box, probe.cview(), fftId());                      \
        if (!r.ok() && r.error.find("cuFFT") != std::string::npos) GTEST_SKIP() << r.error;                \
    } while (0)

class FftMatrix : public ::testing::TestWithParam<BorderDepthChannels> {};

TEST_P(FftMatrix, MatchesTheReferenceWithinItsTolerance) {
    FS_SKIP_WITHOUT_FFT();
    checkApproximateMatrix(fftId(), GetParam(), fftBound);
}

INSTANTIATE_TEST_SUITE_P(Cuda, FftMatrix,
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                                            ::testing::Values(1, 3, 4)),
                         borderDepthChannelsName);

// Every odd side 3..63: the tile size changes with it (32 up to 128 here).
TEST(FftMode, EveryKernelSideFrom3To63) {
    FS_SKIP_WITHOUT_FFT();
    checkEveryKernelSide(fftId(), fftBound);
}

// Integer kernels on integer images: the transforms' error stays far below
// 0.5, so the rounded results equal the reference bit for bit.
TEST(FftMode, IntegerKernelsOnIntegerImagesRoundToTheExactResult) {
    FS_SKIP_WITHOUT_FFT();
    checkIntegerKernelsExact(fftId(), {"laplacian-8", "sobel-x"});
}

// The host path in many pieces on the engine's three streams (each with its
// own work area), a wrap border reading its halo across the top and bottom.
TEST(FftMode, PipelinedPiecesMatchTheReference) {
    FS_SKIP_WITHOUT_FFT();
    checkPipelinedPieces(fftId(), fftBound);
}

// A tile holding a NaN or an infinity is filtered directly: the non-finite
// outputs are exactly the reference's (the kernel's window around them), and
// the other tiles stay within the tolerance.
// 3e30 is finite, but its rounding would swamp a tile: filtered directly too.
TEST(FftMode, NonFiniteSamplesStayLocalAsInTheReference) {
    FS_SKIP_WITHOUT_FFT();
    checkNonFiniteStaysLocal(fftId(), /*hugeFinite=*/true,
                             [](double expected, double) { return 1e-5 * (std::fabs(expected) + 4.0); });
}

// The kernel's spectrum is cached per tile size: another kernel of the same
// size must replace it, and the first must come back right.
TEST(FftMode, ChangedWeightsReplaceTheCachedSpectrum) {
    FS_SKIP_WITHOUT_FFT();
    std::mt19937 rng = testRng();
    const Image input = randomImage(257, 129, 3, Depth::F32, rng);
    FilterSpec a, b;
    a.kernels = {randomKernel(21, 21, rng)};
    b.kernels = {randomKernel(21, 21, rng)};
    for (const FilterSpec* s : {&a, &b, &a, &b}) {
        Image actual;
        ASSERT_TRUE(runPoisoned(*s, input.cview(), fftId(), actual));
        EXPECT_TRUE(withinFftTolerance(*s, input.cview(), actual));
    }
}

// Its plans and tiles are the engine's cache: freed under memory pressure and
// made again by the next run.
TEST(FftMode, WorkAreasAreFreedWithTheEnginesCaches) {
    FS_SKIP_WITHOUT_FFT();
    std::mt19937 rng = testRng();
    const Image input = randomImage(640, 480, 1, Depth::F32, rng);
    FilterSpec s;
    s.kernels = {randomKernel(31, 31, rng)};
    gpu::Engine& engine = gpu::Engine::instance();
    std::string error;
    const gpu::DeviceImageHandle image = engine.upload(input.cview(), error);
    ASSERT_TRUE(image) << error;
    Image got(640, 480, 1, Depth::F32);
    TimingRecord timing;
    engine.trimCaches();
    ASSERT_EQ(engine.run(s, image, fftId(), gpu::RunTarget::hostImage(got.view()), timing), "");
    // Kept: the weights, the output before its download (the image's size) and
    // the fft planes, whose tiles with their halo hold more than the image.
    const std::size_t weightsBytes = 2u * 63 * 63 * sizeof(float), imageBytes = 640u * 480 * sizeof(float);
    EXPECT_GT(engine.cachedBytes(), weightsBytes + 2 * imageBytes);
    engine.trimCaches();
    EXPECT_LE(engine.cachedBytes(), weightsBytes);
    Image again(640, 480, 1, Depth::F32);
    ASSERT_EQ(engine.run(s, image, fftId(), gpu::RunTarget::hostImage(again.view()), timing), "");
    engine.release(image);
    EXPECT_TRUE(withinFftTolerance(s, input.cview(), got));
    EXPECT_TRUE(imagesMatch(got, again, exact()));  // same tiles, same plans: same sums
}

TEST(FftMode, RefusesLaunchKnobsAndOverflowingWeights) {
    FS_SKIP_WITHOUT_FFT();
    checkLaunchKnobsRefused(fftId());
    const Image input(16, 16, 1, Depth::F32);
    FilterSpec s;
    s.kernels = {Kernel(3, 1, {3e38f, 3e38f, -3e38f})};
    const RunResult huge = gpu::makeCudaBackend()->run(s, input.cview(), fftId());
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.error.find("mode " + fftId() + ":"), 0u) << huge.error;
}

}  // namespace
}  // namespace fs::test
