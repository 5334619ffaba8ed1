// N:M:M layers: every layer runner (CPU rows over cores, CUDA one launch)
// and the one-by-one way against a reference sum built here from the CPU
// reference's raw float results, on u8 and f32, odd sizes, mixed kernel
// sizes and borders. Runners this build or machine lacks skip.
#include <gtest/gtest.h>

#include "backends.hpp"
#include "fs/cpu/layer.hpp"
#include "fs/pixel_math.hpp"
#include "layers.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

KernelBank randomBank(std::mt19937& rng, int inputs, int outputs, Border border, OutputMapping output) {
    KernelBank bank;
    bank.name = "random";
    bank.inputs = inputs;
    bank.outputs = outputs;
    bank.border = border;
    bank.output = output;
    const int sizes[] = {1, 3, 5, 7};
    for (int i = 0; i < inputs * outputs; ++i)
        bank.kernels.push_back(test::randomKernel(sizes[i % 4], sizes[(i + 1) % 4], rng));
    return bank;
}

// Sum over inputs of the CPU reference's float result, in double, then the mapping.
std::vector<Image> referenceSum(const KernelBank& bank, const std::vector<ConstImageView>& inputs) {
    std::unique_ptr<Backend> cpu = std::move(makeAllBackends().front());
    std::string reference;
    for (const ModeInfo& m : cpu->modes())
        if (m.isReference) reference = m.id;
    const ConstImageView& first = inputs[0];
    const Depth outDepth = bank.output.floatOutput ? Depth::F32 : first.depth;
    const std::size_t rowSamples = static_cast<std::size_t>(first.width) * first.channels;
    std::vector<Image> outputs;
    for (int m = 0; m < bank.outputs; ++m) {
        std::vector<double> sums(rowSamples * first.height, 0.0);
        for (int n = 0; n < bank.inputs; ++n) {
            FilterSpec term;
            term.kernels = {bank.at(n, m)};
            term.border = bank.border;
            term.output.floatOutput = true;
            const RunResult r = cpu->run(term, inputs[n], reference);
            EXPECT_TRUE(r.ok()) << r.error;
            for (int y = 0; y < first.height; ++y)
                for (std::size_t i = 0; i < rowSamples; ++i) sums[rowSamples * y + i] += r.output.cview().row<float>(y)[i];
        }
        Image out(first.width, first.height, first.channels, outDepth);
        for (int y = 0; y < first.height; ++y)
            for (std::size_t i = 0; i < rowSamples; ++i) {
                const float v = applyMapping(static_cast<float>(sums[rowSamples * y + i]), bank.output.scale,
                                             bank.output.offset, bank.output.absolute);
                switch (outDepth) {
                case Depth::U8: out.view().row<std::uint8_t>(y)[i] = PixelTraits<std::uint8_t>::store(v); break;
                case Depth::U16: out.view().row<std::uint16_t>(y)[i] = PixelTraits<std::uint16_t>::store(v); break;
                case Depth::F32: out.view().row<float>(y)[i] = v; break;
                }
            }
        outputs.push_back(std::move(out));
    }
    return outputs;
}

struct Case {
    Depth depth;
    int channels;
    Border border;
    OutputMapping output;
};

const Case kCases[] = {
    {Depth::U8, 1, {BorderMode::Reflect101, 0.0f}, {0.25f, 64.0f, true, false}},
    {Depth::U8, 3, {BorderMode::Constant, 9.0f}, {0.5f, 0.0f, true, false}},
    {Depth::F32, 1, {BorderMode::Wrap, 0.0f}, {}},
    {Depth::F32, 3, {BorderMode::Replicate, 0.0f}, {2.0f, -1.0f, false, false}},
    {Depth::U8, 1, {BorderMode::Reflect101, 0.0f}, {1.0f, 0.0f, false, true}},  // raw float output
};

class Layer : public ::testing::TestWithParam<std::string> {};  // param: "cpu-reference", "cpu", "cuda", "one-by-one"

std::unique_ptr<LayerRunner> runnerFor(const std::string& which) {
    if (which == "cpu-reference") return cpu::makeCpuLayerRunner(false);
    return makeLayerRunner(which);
}

TEST_P(Layer, EqualsTheReferenceSum) {
    std::mt19937 rng = test::testRng();
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    std::unique_ptr<LayerRunner> runner;
    if (GetParam() != "one-by-one") {
        runner = runnerFor(GetParam());
        if (!runner) GTEST_SKIP() << GetParam() << " has no layer runner in this build";
        if (GetParam() == "cuda" && !findBackend(backends, "cuda")->available())
            GTEST_SKIP() << findBackend(backends, "cuda")->unavailableReason();
    }
    for (const Case& c : kCases) {
        const int inputs = 3, outputs = 2;
        std::vector<Image> images;
        std::vector<ConstImageView> views;
        for (int n = 0; n < inputs; ++n) images.push_back(test::randomImage(37, 23, c.channels, c.depth, rng));
        for (const Image& img : images) views.push_back(img.cview());
        const KernelBank bank = randomBank(rng, inputs, outputs, c.border, c.output);
        const LayerResult got = runner ? runner->run(bank, views)
                                       : runLayerOneByOne(*backends.front(), backends.front()->defaultMode(), bank, views);
        ASSERT_TRUE(got.ok()) << got.error;
        ASSERT_EQ(got.outputs.size(), 2u);
        ASSERT_TRUE(got.timing.totalMs.has_value());
        const std::vector<Image> want = referenceSum(bank, views);
        // Three random kernels' responses add up: allow float error at that scale.
        const Depth outDepth = bank.output.floatOutput ? Depth::F32 : c.depth;
        const double scale = 3.0 * 49.0 * test::maxInputOf(c.depth) * std::max(1.0f, std::fabs(c.output.scale));
        for (int m = 0; m < outputs; ++m)
            EXPECT_TRUE(test::imagesMatch(got.outputs[m], want[m], test::toleranceFor(outDepth, scale)))
                << GetParam() << " output " << m << " " << depthName(c.depth) << " " << c.channels << "ch "
                << borderModeName(c.border.mode);
    }
}

INSTANTIATE_TEST_SUITE_P(Runners, Layer, ::testing::Values("cpu-reference", "cpu", "cuda", "one-by-one"),
                         [](const auto& paramInfo) {
                             std::string name = paramInfo.param;
                             for (char& ch : name)
                                 if (ch == '-') ch = '_';
                             return name;
                         });

TEST(LayerRules, MismatchedOrMissingInputsAreRefusedWithTheReason) {
    std::mt19937 rng = test::testRng();
    const KernelBank bank = randomBank(rng, 2, 2, {}, {});
    const Image a = test::randomImage(20, 10, 1, Depth::U8, rng);
    const Image b = test::randomImage(21, 10, 1, Depth::U8, rng);
    const LayerResult wrongCount = cpu::makeCpuLayerRunner(true)->run(bank, {a.cview()});
    EXPECT_NE(wrongCount.error.find("takes 2 input"), std::string::npos) << wrongCount.error;
    const LayerResult wrongSize = cpu::makeCpuLayerRunner(true)->run(bank, {a.cview(), b.cview()});
    EXPECT_NE(wrongSize.error.find("input 1 is 21x10"), std::string::npos) << wrongSize.error;
    EXPECT_TRUE(wrongSize.outputs.empty());
    KernelBank short_ = bank;
    short_.kernels.pop_back();
    EXPECT_NE(validateBank(short_).find("needs 4 kernels, got 3"), std::string::npos);
}

}  // namespace
}  // namespace fs
