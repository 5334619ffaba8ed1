// "Valid" output (FilterSpec::outputSize) through every backend this build
// has and every available mode: the result is the interior of the CPU
// reference's padded result, for u8 and f32, odd sizes, any border. Backends
// that are not built or have no device skip (CUDA on a machine without a GPU).
#include <gtest/gtest.h>

#include "backends.hpp"
#include "fs/batch.hpp"
#include "fs/pipeline.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

// The reference's padded result, viewed without its outer rx columns and ry rows.
ConstImageView interiorOf(const Image& padded, int rx, int ry) {
    const ConstImageView v = padded.cview();
    const auto* first = static_cast<const std::uint8_t*>(v.data) + v.stride * static_cast<std::size_t>(ry) +
                        v.pixelBytes() * static_cast<std::size_t>(rx);
    return ConstImageView(first, v.width - 2 * rx, v.height - 2 * ry, v.channels, v.depth, v.stride);
}

struct Fixture {
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend& cpu() { return *findBackend(backends, "cpu"); }
    std::string referenceMode() {
        for (const ModeInfo& m : cpu().modes())
            if (m.isReference) return m.id;
        return cpu().defaultMode();
    }
};

FilterSpec randomSpec(std::mt19937& rng, int kw, int kh, BorderMode border) {
    FilterSpec spec;
    spec.name = "random";
    // Rank 1 (a random column times a random row), so every mode takes it, the separable one too.
    std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
    std::vector<float> column(static_cast<std::size_t>(kh)), row(static_cast<std::size_t>(kw)), taps;
    for (float& v : column) v = weight(rng);
    for (float& v : row) v = weight(rng);
    for (float c : column)
        for (float r : row) taps.push_back(c * r);
    spec.kernels = {Kernel(kw, kh, std::move(taps))};
    spec.border = {border, 7.0f};
    spec.outputSize = OutputSize::Valid;
    return spec;
}

class ValidOutput : public ::testing::TestWithParam<std::string> {};  // param: backend id

TEST_P(ValidOutput, EveryModeGivesTheReferenceInterior) {
    Fixture f;
    Backend* backend = findBackend(f.backends, GetParam());
    if (!backend) GTEST_SKIP() << GetParam() << " is not built into this binary";
    if (!backend->available()) GTEST_SKIP() << GetParam() << ": " << backend->unavailableReason();
    std::mt19937 rng = test::testRng();
    const std::string reference = f.referenceMode();
    int checked = 0;
    for (const ModeInfo& mode : backend->modes()) {
        if (!mode.available) continue;
        for (Depth depth : {Depth::U8, Depth::F32})
            for (int channels : {1, 3}) {
                const Image input = test::randomImage(41, 29, channels, depth, rng);
                for (auto [kw, kh, border] : {std::tuple{3, 3, BorderMode::Reflect101}, std::tuple{5, 3, BorderMode::Constant},
                                              std::tuple{7, 5, BorderMode::Wrap}}) {
                    const FilterSpec valid = randomSpec(rng, kw, kh, border);
                    FilterSpec same = valid;
                    same.outputSize = OutputSize::Same;
                    const RunResult padded = f.cpu().run(same, input.cview(), reference);
                    ASSERT_TRUE(padded.ok()) << padded.error;
                    const RunResult got = backend->run(valid, input.cview(), mode.id);
                    const std::string where = GetParam() + "/" + mode.id + " " + depthName(depth) + " " +
                                              std::to_string(channels) + "ch " + std::to_string(kw) + "x" + std::to_string(kh);
                    ASSERT_TRUE(got.ok()) << where << ": " << got.error;
                    EXPECT_EQ(got.output.width(), 41 - kw + 1) << where;
                    EXPECT_EQ(got.output.height(), 29 - kh + 1) << where;
                    const double scale = test::responseScale(valid, test::maxInputOf(depth));
                    EXPECT_TRUE(test::imagesMatch(got.output.cview(), interiorOf(padded.output, kw / 2, kh / 2),
                                                  mode.approximate ? test::approximateToleranceFor(depth, scale)
                                                                   : test::toleranceFor(depth, scale)))
                        << where;
                    ++checked;
                }
            }
    }
    EXPECT_GT(checked, 0) << GetParam() << " has no available mode";
}

INSTANTIATE_TEST_SUITE_P(Backends, ValidOutput, ::testing::Values("cpu", "cuda", "opencl", "opencl-cpu"),
                         [](const auto& paramInfo) {
                             std::string name = paramInfo.param;
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

TEST(ValidOutputRules, TheBorderNeverReachesTheResult) {
    Fixture f;
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(19, 13, 1, Depth::F32, rng);
    FilterSpec spec = randomSpec(rng, 5, 5, BorderMode::Reflect101);
    const RunResult reflect = f.cpu().run(spec, input.cview(), f.referenceMode());
    spec.border = {BorderMode::Constant, 1000.0f};
    const RunResult constant = f.cpu().run(spec, input.cview(), f.referenceMode());
    ASSERT_TRUE(reflect.ok() && constant.ok()) << reflect.error << constant.error;
    EXPECT_TRUE(test::imagesMatch(reflect.output, constant.output, test::exact()));
}

TEST(ValidOutputRules, AnImageSmallerThanTheKernelIsRefused) {
    Fixture f;
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(4, 9, 1, Depth::U8, rng);
    const RunResult r = f.cpu().run(randomSpec(rng, 5, 5, BorderMode::Reflect101), input.cview(), f.referenceMode());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error.find("valid output"), std::string::npos) << r.error;
    EXPECT_TRUE(r.output.empty());
}

TEST(ValidOutputRules, BatchRunnersCropEachSpecAlone) {
    Fixture f;
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(23, 17, 3, Depth::U8, rng);
    FilterSpec same = randomSpec(rng, 3, 5, BorderMode::Replicate);
    same.outputSize = OutputSize::Same;
    const std::vector<FilterSpec> specs{randomSpec(rng, 5, 3, BorderMode::Replicate), same};
    for (const auto& backend : f.backends) {
        if (!backend->available()) continue;
        const std::vector<RunResult> results = backend->makeBatchRunner()->runSpecs(input.cview(), specs, backend->defaultMode());
        ASSERT_EQ(results.size(), 2u);
        for (std::size_t j = 0; j < specs.size(); ++j) {
            ASSERT_TRUE(results[j].ok()) << backend->id() << ": " << results[j].error;
            const RunResult alone = backend->run(specs[j], input.cview(), backend->defaultMode());
            ASSERT_TRUE(alone.ok()) << alone.error;
            EXPECT_TRUE(test::imagesMatch(results[j].output, alone.output, test::exact())) << backend->id() << " spec " << j;
        }
        EXPECT_EQ(results[0].output.width(), 19);
        EXPECT_EQ(results[0].output.height(), 15);
        EXPECT_EQ(results[1].output.width(), 23);
    }
}

TEST(ValidOutputRules, PipelinesShrinkAtTheValidStep) {
    Fixture f;
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(31, 21, 1, Depth::U8, rng);
    Pipeline pipeline;
    PipelineStep blur;
    blur.filter = test::presetSpec("gaussian:5:1.2");
    blur.filter.outputSize = OutputSize::Valid;
    PipelineStep threshold;
    threshold.op = StepOp::Threshold;
    threshold.threshold = 100.0f;
    pipeline.steps = {blur, threshold};
    for (const auto& backend : f.backends) {
        if (!backend->available()) continue;
        std::unique_ptr<PipelineRunner> runner = backend->makePipelineRunner(backend->defaultMode());
        if (!runner) continue;  // the host runner around run(), covered by the CPU backend's own
        const PipelineResult r = runner->run(pipeline, input.cview());
        ASSERT_TRUE(r.ok()) << backend->id() << ": " << r.error;
        EXPECT_EQ(r.output.width(), 27) << backend->id();
        EXPECT_EQ(r.output.height(), 17) << backend->id();
    }
}

#if defined(FS_HAVE_KERNEL_FILES)
TEST(ValidOutputRules, PipelineFilesAskForItBesideAPreset) {
    Pipeline pipeline;
    std::string why;
    ASSERT_TRUE(parsePipelineJson(R"({"format": "filterstudio-pipeline", "version": 1, "name": "v",
      "steps": [{"op": "convolve", "filter": "box:5", "output": {"size": "valid"}}]})",
                                  pipeline, &why))
        << why;
    EXPECT_EQ(pipeline.steps[0].filter.outputSize, OutputSize::Valid);
    Pipeline back;
    ASSERT_TRUE(parsePipelineJson(pipelineToJson(pipeline), back, &why)) << why;
    EXPECT_EQ(back.steps[0].filter.outputSize, OutputSize::Valid);
    EXPECT_FALSE(parsePipelineJson(R"({"format": "filterstudio-pipeline", "version": 1, "name": "v",
      "steps": [{"op": "convolve", "filter": "box:5", "output": {"size": "full"}}]})",
                                   pipeline, &why));
    EXPECT_NE(why.find("steps[0].output.size"), std::string::npos) << why;
    Fixture f;
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(30, 20, 1, Depth::U8, rng);
    const PipelineResult r = f.cpu().makePipelineRunner(f.cpu().defaultMode())->run(back, input.cview());
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.output.width(), 26);
    EXPECT_EQ(r.output.height(), 16);
}
#endif

}  // namespace
}  // namespace fs
