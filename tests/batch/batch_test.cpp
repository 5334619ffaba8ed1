// Batch runners (1:N:N and N:M:M) against the same specs run one by one:
// every output identical, every failure isolated to its own pair.
#include <gtest/gtest.h>

#include <cstring>

#include "fs/batch.hpp"
#include "fs/cpu/batch.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/presets.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

// A mix that takes every parallel-mode path: separable, 2-D, magnitude, float output, each border.
std::vector<FilterSpec> mixedSpecs(std::mt19937& rng) {
    std::vector<FilterSpec> specs{test::presetSpec("gaussian:5:1.2"), test::presetSpec("sobel-mag"), test::presetSpec("laplacian-8"), test::presetSpec("box:7")};
    FilterSpec random;
    random.name = "random 5x3";
    random.kernels = {test::randomKernel(5, 3, rng)};
    random.border = {BorderMode::Constant, 17.0f};
    random.output = {0.5f, 3.0f, true, false};
    specs.push_back(random);
    specs[1].output.floatOutput = true;
    specs[2].border = {BorderMode::Wrap, 0.0f};
    specs[3].border = {BorderMode::Replicate, 0.0f};
    return specs;
}

std::vector<Image> mixedImages(std::mt19937& rng) {
    std::vector<Image> images;
    images.push_back(test::randomImage(37, 23, 1, Depth::U8, rng));
    images.push_back(test::randomImage(64, 9, 3, Depth::U16, rng));
    images.push_back(test::randomImage(5, 41, 4, Depth::F32, rng));
    images.push_back(test::randomImage(1, 1, 3, Depth::U8, rng));
    return images;
}

std::vector<ConstImageView> viewsOf(const std::vector<Image>& images) {
    std::vector<ConstImageView> views;
    for (const Image& img : images) views.push_back(img.cview());
    return views;
}

class Batch : public ::testing::TestWithParam<std::string> {};  // param: mode

TEST_P(Batch, GridEqualsEachPairRunAlone) {
    std::mt19937 rng = test::testRng();
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    const std::vector<FilterSpec> specs = mixedSpecs(rng);
    const std::vector<Image> images = mixedImages(rng);
    for (auto makeRunner : {&makeLoopBatchRunner, &cpu::makeCpuBatchRunner}) {
        const std::unique_ptr<BatchRunner> runner = makeRunner(*backend);
        const std::vector<RunResult> results = runner->runGrid(viewsOf(images), specs, GetParam());
        ASSERT_EQ(results.size(), images.size() * specs.size());
        for (std::size_t i = 0; i < images.size(); ++i)
            for (std::size_t j = 0; j < specs.size(); ++j) {
                const RunResult& got = results[i * specs.size() + j];
                ASSERT_TRUE(got.ok()) << got.error;
                const RunResult alone = backend->run(specs[j], images[i].cview(), GetParam());
                ASSERT_TRUE(alone.ok()) << alone.error;
                EXPECT_TRUE(test::imagesMatch(got.output, alone.output, test::exact())) << "image " << i << ", " << specs[j].name;
                // And within the usual tolerance of the reference itself.
                const Image reference = cpu::referenceFilter(specs[j], images[i].cview());
                const double scale = test::responseScale(specs[j], test::maxInputOf(images[i].depth()));
                EXPECT_TRUE(test::imagesMatch(got.output, reference, test::toleranceFor(reference.depth(), scale)))
                    << "image " << i << ", " << specs[j].name;
                EXPECT_EQ(got.timing.backend, "cpu");
                EXPECT_EQ(got.timing.mode, GetParam());
            }
    }
}

TEST_P(Batch, OneImageManySpecsEqualsTheReferenceOneByOne) {
    std::mt19937 rng = test::testRng();
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    const std::vector<FilterSpec> specs = mixedSpecs(rng);
    const Image image = test::randomImage(101, 77, 3, Depth::U8, rng);
    const std::vector<RunResult> results = cpu::makeCpuBatchRunner(*backend)->runSpecs(image.cview(), specs, GetParam());
    ASSERT_EQ(results.size(), specs.size());
    for (std::size_t j = 0; j < specs.size(); ++j) {
        ASSERT_TRUE(results[j].ok()) << results[j].error;
        const Image reference = cpu::referenceFilter(specs[j], image.cview());
        const test::Tolerance tol = GetParam() == "reference"
                                        ? test::exact()
                                        : test::toleranceFor(reference.depth(), test::responseScale(specs[j], 255.0));
        EXPECT_TRUE(test::imagesMatch(results[j].output, reference, tol)) << specs[j].name;
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, Batch, ::testing::Values("reference", "parallel"),
                         [](const ::testing::TestParamInfo<std::string>& modeInfo) { return modeInfo.param; });

TEST(BatchRunner, AFailedPairLeavesTheOthersRunning) {
    std::mt19937 rng = test::testRng();
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    std::vector<FilterSpec> specs{test::presetSpec("box:3"), test::presetSpec("sobel-x"), test::presetSpec("emboss")};
    specs[1].kernels[0].width = 4;  // invalid: even width
    const Image good = test::randomImage(20, 10, 1, Depth::U8, rng);
    const Image tiny = test::randomImage(3, 3, 1, Depth::U8, rng);
    Image unusable;  // empty view: validateImage rejects it
    const std::vector<ConstImageView> inputs{good.cview(), unusable.cview(), tiny.cview()};
    for (auto makeRunner : {&makeLoopBatchRunner, &cpu::makeCpuBatchRunner}) {
        const std::vector<RunResult> results = makeRunner(*backend)->runGrid(inputs, specs, "parallel");
        ASSERT_EQ(results.size(), 9u);
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j) {
                const RunResult& r = results[i * 3 + j];
                const bool shouldFail = i == 1 || j == 1;
                EXPECT_EQ(r.ok(), !shouldFail) << "image " << i << " spec " << j << ": " << r.error;
                if (shouldFail) {
                    EXPECT_TRUE(r.output.empty());
                }
            }
        EXPECT_NE(results[1].error.find("even"), std::string::npos) << results[1].error;
    }
}

TEST(BatchRunner, UnknownModeIsAnErrorPerPair) {
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    Image img(4, 4, 1, Depth::U8);
    img.fillBytes(9);
    const std::vector<RunResult> results = cpu::makeCpuBatchRunner(*backend)->runSpecs(img.cview(), {test::presetSpec("box:3"), test::presetSpec("box:5")}, "turbo");
    ASSERT_EQ(results.size(), 2u);
    for (const RunResult& r : results) EXPECT_NE(r.error.find("turbo"), std::string::npos) << r.error;
}

TEST(BatchRunner, NothingToDoGivesNoResults) {
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    Image img(4, 4, 1, Depth::U8);
    img.fillBytes(1);
    EXPECT_TRUE(cpu::makeCpuBatchRunner(*backend)->runSpecs(img.cview(), {}, "parallel").empty());
    EXPECT_TRUE(cpu::makeCpuBatchRunner(*backend)->runGrid({}, {test::presetSpec("box:3")}, "parallel").empty());
}

}  // namespace
}  // namespace fs
