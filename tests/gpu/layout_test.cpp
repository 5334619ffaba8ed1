// Interleaved (global) against planar (global-planar) channel layout: the
// same taps in the same order, so equal bit for bit, for every depth,
// channel count and border, magnitudes and output mappings, on the device
// path and the host path in pieces. Their times are the benchmark's.
#include "fs/gpu/cuda_options.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

TEST(ChannelLayout, PlanarEqualsInterleavedBitForBit) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (Depth depth : {Depth::U8, Depth::U16, Depth::F32})
        for (int channels : {1, 3, 4})
            for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap,
                                      BorderMode::Constant}) {
                const Image input = randomImage(211, 67, channels, depth, rng);
                FilterSpec dense;
                dense.kernels = {randomKernel(9, 5, rng)};
                dense.output = {0.5f, 3.0f, true, depth == Depth::U16};
                FilterSpec magnitude = presetSpec("sobel-mag");
                for (FilterSpec* spec : {&dense, &magnitude}) {
                    spec->border = {border, 7.0f};
                    SCOPED_TRACE(std::string(depthName(depth)) + " c" + std::to_string(channels) + " " +
                                 borderModeName(border) + (spec == &dense ? " dense" : " magnitude"));
                    Image interleaved, planar;
                    ASSERT_TRUE(runPoisoned(*spec, input.cview(), "global", interleaved));
                    ASSERT_TRUE(runPoisoned(*spec, input.cview(), "global-planar", planar));
                    EXPECT_TRUE(imagesMatch(planar, interleaved, exact()));
                    gpu::setPipelineRows(16);  // pieces on three streams, each with its own planes
                    const RunResult pieces = backend->run(*spec, input.cview(), "global-planar");
                    gpu::setPipelineRows(0);
                    ASSERT_TRUE(pieces.ok()) << pieces.error;
                    EXPECT_TRUE(imagesMatch(pieces.output, interleaved, exact()));
                }
            }
}

}  // namespace
}  // namespace fs::test
