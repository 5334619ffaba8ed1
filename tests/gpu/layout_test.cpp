// The planar channel layout (LaunchConfig::layout) in every CUDA mode: the
// image is split into one plane per channel, each plane filtered as a gray
// image, and the result interleaved again. Checked against the reference,
// with the same policy as the interleaved runs, for every depth, channel
// count and border, on the device path and the host path in pieces; the
// split and merge are timed apart from the filtering.
#include "fs/gpu/cuda_options.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

LaunchConfig planar() {
    LaunchConfig c;
    c.layout = ChannelLayout::Planar;
    return c;
}

TEST(ChannelLayout, PlanarMatchesTheReferenceInEveryMode) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (const ModeInfo& mode : backend->modes()) {
        for (Depth depth : {Depth::U8, Depth::U16, Depth::F32})
            for (int channels : {3, 4})
                for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap,
                                          BorderMode::Constant}) {
                    const Image input = randomImage(211, 67, channels, depth, rng);
                    FilterSpec gaussian;
                    gaussian.kernels = {gaussianKernel(5, 1.2)};
                    FilterSpec magnitude = presetSpec("sobel-mag");
                    for (FilterSpec* spec : {&gaussian, &magnitude}) {
                        spec->border = {border, 7.0f};
                        SCOPED_TRACE(mode.id + " " + depthName(depth) + " c" + std::to_string(channels) + " " +
                                     borderModeName(border) + (spec == &gaussian ? " gaussian" : " magnitude"));
                        Image planes, interleaved;
                        ASSERT_TRUE(runPoisoned(*spec, input.cview(), mode.id, planes, 0x5A, planar()));
                        const Image expected = cpu::referenceFilter(*spec, input.cview());
                        if (mode.approximate) {
                            // Its own tolerance is the fft test's; here: planes change nothing.
                            ASSERT_TRUE(runPoisoned(*spec, input.cview(), mode.id, interleaved));
                            EXPECT_TRUE(imagesMatch(planes, interleaved, toleranceFor(expected.depth(), 255.0)));
                        } else {
                            EXPECT_TRUE(matchesReference(*spec, input.cview(), planes, expected));
                        }
                    }
                }
    }
}

TEST(ChannelLayout, PlanarPiecesAndTimings) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const Image input = randomImage(640, 203, 3, Depth::U8, rng);
    FilterSpec spec;
    spec.kernels = {randomIntegerKernel(5, 3, rng)};
    spec.output.absolute = true;
    spec.border = {BorderMode::Wrap, 0.0f};
    const Image expected = cpu::referenceFilter(spec, input.cview());
    gpu::setPipelineRows(16);  // pieces on three streams, each with its own planes
    const RunResult pieces = backend->runWithLaunch(spec, input.cview(), "global", planar());
    gpu::setPipelineRows(0);
    ASSERT_TRUE(pieces.ok()) << pieces.error;
    EXPECT_TRUE(imagesMatch(pieces.output, expected, exact()));
    ASSERT_TRUE(pieces.timing.layoutMs.has_value());
    EXPECT_GT(*pieces.timing.layoutMs, 0.0);
    EXPECT_GT(pieces.timing.kernelMs.value_or(0.0), 0.0);
    EXPECT_NE(pieces.timing.launch.find("planar"), std::string::npos) << pieces.timing.launch;

    // Interleaved runs say nothing of planes; a gray image has nothing to split.
    const RunResult plain = backend->runWithLaunch(spec, input.cview(), "global", {});
    ASSERT_TRUE(plain.ok()) << plain.error;
    EXPECT_FALSE(plain.timing.layoutMs.has_value());
    const Image gray = randomImage(64, 48, 1, Depth::F32, rng);
    const RunResult grayPlanar = backend->runWithLaunch(spec, gray.cview(), "global", planar());
    ASSERT_TRUE(grayPlanar.ok()) << grayPlanar.error;
    EXPECT_FALSE(grayPlanar.timing.layoutMs.has_value());

    // The launch report names the layout, and a knob the mode lacks is refused for the plane.
    const LaunchReport report = backend->describeLaunch(spec, 640, 203, Depth::U8, 3, "shared", planar());
    ASSERT_TRUE(report.ok()) << report.error;
    EXPECT_EQ(report.config.layout, ChannelLayout::Planar);
    LaunchConfig refused = planar();
    refused.halo = HaloScheme::PerThread;
    const LaunchReport no = backend->describeLaunch(spec, 640, 203, Depth::U8, 3, "global", refused);
    EXPECT_FALSE(no.ok());
    EXPECT_EQ(no.config.layout, ChannelLayout::Planar);
}

}  // namespace
}  // namespace fs::test
