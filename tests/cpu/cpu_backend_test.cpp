// The CPU backend without OpenCV: the reference against hand-computed values,
// the parallel mode against the reference, and the Backend contract.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <thread>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/presets.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

Image imageFrom(int w, int h, int channels, Depth depth, const std::vector<float>& values) {
    Image img(w, h, channels, depth);
    for (int y = 0; y < h; ++y)
        for (int i = 0; i < w * channels; ++i) {
            const float v = values[static_cast<std::size_t>(y) * w * channels + i];
            switch (depth) {
            case Depth::U8: img.view().row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(v); break;
            case Depth::U16: img.view().row<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(v); break;
            case Depth::F32: img.view().row<float>(y)[i] = v; break;
            }
        }
    return img;
}

FilterSpec specOf(Kernel k, Border border = {}, OutputMapping out = {}) {
    FilterSpec s;
    s.name = "test";
    s.kernels = {std::move(k)};
    s.border = border;
    s.output = out;
    return s;
}

const OutputMapping kFloat{1.0f, 0.0f, false, true};

// 1 2 3 / 4 5 6 / 7 8 9 summed over 3x3 at the top-left corner, worked out by hand.
TEST(Reference, BoxSumAtTheCornerForEachBorder) {
    const Image img = imageFrom(3, 3, 1, Depth::U8, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const Kernel ones(3, 3, std::vector<float>(9, 1.0f));
    struct Case {
        Border border;
        float corner;
    };
    const Case cases[] = {{{BorderMode::Replicate, 0}, 1 + 1 + 2 + 1 + 1 + 2 + 4 + 4 + 5},
                          {{BorderMode::Reflect101, 0}, 5 + 4 + 5 + 2 + 1 + 2 + 5 + 4 + 5},
                          {{BorderMode::Constant, 10}, 10 * 5 + 1 + 2 + 4 + 5},
                          {{BorderMode::Wrap, 0}, 9 + 7 + 8 + 3 + 1 + 2 + 6 + 4 + 5}};
    for (const Case& c : cases) {
        const Image out = cpu::referenceFilter(specOf(ones, c.border, kFloat), img.cview());
        EXPECT_EQ(out.depth(), Depth::F32);
        EXPECT_EQ(out.cview().row<float>(0)[0], c.corner) << borderModeName(c.border.mode);
        EXPECT_EQ(out.cview().row<float>(1)[1], 45.0f) << "the centre never sees the border";
    }
}

TEST(Reference, IsCorrelationNotConvolution) {
    // Weight on the left neighbour: out(x) = in(x - 1), with no kernel flip.
    const Image img = imageFrom(4, 1, 1, Depth::F32, {10, 20, 30, 40});
    const Image out = cpu::referenceFilter(specOf(Kernel(3, 1, {1, 0, 0}), {BorderMode::Replicate, 0}), img.cview());
    const float* r = out.cview().row<float>(0);
    EXPECT_EQ(r[0], 10);
    EXPECT_EQ(r[1], 10);
    EXPECT_EQ(r[2], 20);
    EXPECT_EQ(r[3], 30);
}

TEST(Reference, ChannelsAreFilteredSeparately) {
    const Image img = imageFrom(2, 1, 3, Depth::U8, {1, 2, 3, 10, 20, 30});
    const Image out = cpu::referenceFilter(specOf(Kernel(3, 1, {1, 1, 1}), {BorderMode::Constant, 0}), img.cview());
    const std::uint8_t* r = out.cview().row<std::uint8_t>(0);
    EXPECT_EQ(r[0], 11);
    EXPECT_EQ(r[1], 22);
    EXPECT_EQ(r[2], 33);
    EXPECT_EQ(r[3], 11);
}

TEST(Reference, MappingScaleOffsetAbsRoundHalfEvenAndSaturate) {
    const Image img = imageFrom(4, 1, 1, Depth::U8, {10, 14, 18, 200});
    const Kernel id = identityKernel();
    // 0.25 * v: 2.5 -> 2, 3.5 -> 4, 4.5 -> 4 (half to even), 50.
    Image out = cpu::referenceFilter(specOf(id, {}, {0.25f, 0.0f, false, false}), img.cview());
    EXPECT_EQ(std::vector<int>(out.data(), out.data() + 4), (std::vector<int>{2, 4, 4, 50}));
    // -2v + 5, then abs: 15, 23, 31, 395 -> 255.
    out = cpu::referenceFilter(specOf(id, {}, {-2.0f, 5.0f, true, false}), img.cview());
    EXPECT_EQ(std::vector<int>(out.data(), out.data() + 4), (std::vector<int>{15, 23, 31, 255}));
    // Without abs the negatives saturate to 0.
    out = cpu::referenceFilter(specOf(id, {}, {-2.0f, 5.0f, false, false}), img.cview());
    EXPECT_EQ(std::vector<int>(out.data(), out.data() + 4), (std::vector<int>{0, 0, 0, 0}));
    // Float output keeps the sign and fraction.
    out = cpu::referenceFilter(specOf(id, {}, {-0.5f, 1.0f, false, true}), img.cview());
    EXPECT_EQ(out.cview().row<float>(0)[1], -6.0f);
    EXPECT_EQ(out.cview().row<float>(0)[3], -99.0f);
}

TEST(Reference, U16SaturatesAtItsOwnRange) {
    const Image img = imageFrom(2, 1, 1, Depth::U16, {40000, 1000});
    const Image out = cpu::referenceFilter(specOf(identityKernel(), {}, {2.0f, 0.5f, false, false}), img.cview());
    EXPECT_EQ(out.cview().row<std::uint16_t>(0)[0], 65535);
    EXPECT_EQ(out.cview().row<std::uint16_t>(0)[1], 2000) << "2000.5 rounds half to even";
}

TEST(Reference, MagnitudeCombinesTwoResponses) {
    const Image img = imageFrom(1, 1, 1, Depth::F32, {1.0f});
    FilterSpec spec = specOf(Kernel(1, 1, {3.0f}), {}, kFloat);
    spec.kernels.push_back(Kernel(1, 1, {-4.0f}));
    spec.combine = Combine::Magnitude;
    EXPECT_EQ(cpu::referenceFilter(spec, img.cview()).cview().row<float>(0)[0], 5.0f);
}

TEST(Reference, ThrowsOnWhatValidateRunRejects) {
    const Image img = imageFrom(1, 1, 1, Depth::U8, {1});
    EXPECT_THROW(cpu::referenceFilter(specOf(Kernel(2, 1, {1, 1})), img.cview()), std::invalid_argument);
    EXPECT_THROW(cpu::referenceFilter(specOf(identityKernel()), ConstImageView{}), std::invalid_argument);
}

// ---- parallel against reference -------------------------------------------------

struct ModeCase {
    int width, height, channels;
    Depth depth;
};

class ParallelAgainstReference : public ::testing::Test {
protected:
    std::unique_ptr<Backend> cpu_ = cpu::makeCpuBackend();

    void compare(const FilterSpec& spec, const Image& input, bool mustBeExact, const std::string& what) {
        SCOPED_TRACE(what + ", border " + borderModeName(spec.border.mode) + ", " + std::to_string(input.width()) + "x" +
                     std::to_string(input.height()) + "x" + std::to_string(input.channels()) + " " +
                     depthName(input.depth()) + (spec.output.floatOutput ? " -> f32" : ""));
        const Image expected = cpu::referenceFilter(spec, input.cview());
        const RunResult r = cpu_->run(spec, input.cview(), "parallel");
        ASSERT_TRUE(r.ok()) << r.error;
        const test::Tolerance tol =
            mustBeExact ? test::exact()
                        : test::toleranceFor(expected.depth(), test::responseScale(spec, test::maxInputOf(input.depth())));
        EXPECT_TRUE(test::imagesMatch(r.output, expected, tol));
    }
};

class ParallelVsReference : public ParallelAgainstReference, public ::testing::WithParamInterface<ModeCase> {};

TEST_P(ParallelVsReference, EveryBorderKernelShapeAndMapping) {
    const ModeCase& c = GetParam();
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(c.width, c.height, c.channels, c.depth, rng);
    const float constant = static_cast<float>(0.3 * test::maxInputOf(c.depth));
    std::vector<Border> borders = {Border{BorderMode::Replicate, 0}, Border{BorderMode::Reflect101, 0},
                                   Border{BorderMode::Constant, constant}, Border{BorderMode::Wrap, 0}};
    // The reference is slow on a megapixel: one border, chosen by the seed, keeps the suite fast.
    const bool large = c.width * c.height > 100000;
    if (large) borders = {borders[rng() % borders.size()]};
    for (const Border& border : borders) {
        // Non-separable kernels take the 2-D path, which adds in the reference's order: bit-exact.
        compare(specOf(test::randomKernel(5, 3, rng), border, kFloat), input, true, "random 5x3");
        compare(specOf(test::randomKernel(3, 7, rng), border, {0.5f, 3.0f, true, false}), input, true,
                "random 3x7, scale/offset/abs");
        if (!large) compare(specOf(test::randomKernel(15, 9, rng), border, kFloat), input, true, "random 15x9");
        // Rank-1 kernels take the two-pass path: same maths, different rounding.
        compare(specOf(gaussianKernel(7, 1.3), border), input, false, "gaussian 7x7");
        if (!large) compare(specOf(gaussianKernel(11, 0.0), border, kFloat), input, false, "gaussian 11x11");
        compare(specOf(sobelKernel(5, true), border, {0.25f, 128.0f, false, false}), input, false, "sobel 5, offset");
        FilterSpec mag;
        ASSERT_TRUE(makePreset("sobel-mag:3", mag));
        mag.border = border;
        compare(mag, input, false, "sobel magnitude");
        mag.kernels = {test::randomKernel(3, 3, rng), test::randomKernel(5, 5, rng)};
        mag.output = kFloat;
        compare(mag, input, true, "magnitude of two random kernels of different sizes");
        compare(specOf(Kernel(1, 9, std::vector<float>(9, 1.0f / 9)), border), input, true, "1x9 column");
        compare(specOf(Kernel(9, 1, std::vector<float>(9, 1.0f / 9)), border), input, true, "9x1 row");
    }
}

TEST_F(ParallelAgainstReference, KernelsLargerThanTheImage) {
    std::mt19937 rng = test::testRng();
    const int sizes[][2] = {{1, 1}, {2, 2}, {1, 13}, {13, 1}, {7, 3}};
    for (const auto& s : sizes)
        for (int channels : {1, 3, 4})
            for (Depth depth : {Depth::U8, Depth::U16, Depth::F32}) {
                const Image input = test::randomImage(s[0], s[1], channels, depth, rng);
                for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap}) {
                    compare(specOf(test::randomKernel(63, 63, rng), {m, 1.0f}, kFloat), input, true, "random 63x63");
                    compare(specOf(test::randomKernel(15, 31, rng), {m, 1.0f}), input, true, "random 15x31");
                    compare(specOf(gaussianKernel(31, 5.0), {m, 1.0f}), input, false, "gaussian 31x31");
                }
            }
}

std::vector<ModeCase> modeCases() {
    std::vector<ModeCase> cases;
    const int sizes[][2] = {{1, 1}, {1, 13}, {13, 1}, {7, 3}, {67, 45}};
    for (const auto& s : sizes)
        for (int ch : {1, 3, 4})
            for (Depth d : {Depth::U8, Depth::U16, Depth::F32}) cases.push_back({s[0], s[1], ch, d});
    cases.push_back({1023, 769, 1, Depth::U8});
    cases.push_back({1023, 769, 3, Depth::F32});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, ParallelVsReference, ::testing::ValuesIn(modeCases()),
                         [](const ::testing::TestParamInfo<ModeCase>& p) {
                             return std::to_string(p.param.width) + "x" + std::to_string(p.param.height) + "x" +
                                    std::to_string(p.param.channels) + "_" + depthName(p.param.depth);
                         });

TEST(ParallelMode, ReadsAndWritesStridedViews) {
    std::mt19937 rng = test::testRng();
    const Image packed = test::randomImage(31, 17, 3, Depth::U16, rng);
    Image strided(31, 17, 3, Depth::U16, packed.cview().rowBytes() + 26);
    for (int y = 0; y < 17; ++y) std::memcpy(strided.view().row<std::uint8_t>(y), packed.cview().row<std::uint8_t>(y), packed.cview().rowBytes());
    const FilterSpec spec = specOf(test::randomKernel(5, 5, rng), {BorderMode::Wrap, 0});
    const RunResult r = cpu::makeCpuBackend()->run(spec, strided.cview(), "parallel");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(test::imagesMatch(r.output, cpu::referenceFilter(spec, packed.cview()), test::exact()));
}

// ---- the Backend contract -------------------------------------------------------

TEST(CpuBackend, ListsItsModes) {
    const std::unique_ptr<Backend> b = cpu::makeCpuBackend();
    EXPECT_EQ(b->id(), "cpu");
    EXPECT_TRUE(b->available());
    std::vector<std::string> ids;
    for (const ModeInfo& m : b->modes()) {
        ids.push_back(m.id);
        EXPECT_TRUE(m.available);
        EXPECT_FALSE(m.description.empty());
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"reference", "parallel"}));
}

TEST(CpuBackend, TimingHasKernelAndTotalOnly) {
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(64, 48, 3, Depth::U8, rng);
    for (const char* mode : {"reference", "parallel"}) {
        const RunResult r = cpu::makeCpuBackend()->run(specOf(boxKernel(3)), input.cview(), mode);
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_EQ(r.timing.backend, "cpu");
        EXPECT_EQ(r.timing.mode, mode);
        ASSERT_TRUE(r.timing.kernelMs && r.timing.totalMs);
        EXPECT_GE(*r.timing.kernelMs, 0.0);
        EXPECT_GE(*r.timing.totalMs, *r.timing.kernelMs);
        EXPECT_FALSE(r.timing.hostPrepMs || r.timing.uploadMs || r.timing.downloadMs || r.timing.mapMs)
            << "a CPU run has no upload, download or map: those stay absent";
    }
}

TEST(CpuBackend, FailuresComeBackAsErrorsNeverExceptions) {
    const std::unique_ptr<Backend> b = cpu::makeCpuBackend();
    const Image img = imageFrom(2, 2, 1, Depth::U8, {1, 2, 3, 4});
    RunResult r = b->run(specOf(identityKernel()), img.cview(), "turbo");
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("turbo"), std::string::npos) << r.error;
    EXPECT_TRUE(r.output.empty());

    r = b->run(specOf(Kernel(4, 3, std::vector<float>(12, 1.0f))), img.cview(), "parallel");
    EXPECT_NE(r.error.find("even"), std::string::npos) << r.error;
    EXPECT_TRUE(r.output.empty());

    FilterSpec noKernels;
    r = b->run(noKernels, img.cview(), "reference");
    EXPECT_FALSE(r.ok());

    r = b->run(specOf(identityKernel()), ConstImageView{}, "parallel");
    EXPECT_FALSE(r.ok());

    ConstImageView twoChannels = img.cview();
    twoChannels.channels = 2;
    twoChannels.width = 1;
    r = b->run(specOf(identityKernel()), twoChannels, "parallel");
    EXPECT_NE(r.error.find("channels"), std::string::npos) << r.error;

    FilterSpec nanScale = specOf(identityKernel());
    nanScale.output.scale = std::nanf("");
    r = b->run(nanScale, img.cview(), "parallel");
    EXPECT_FALSE(r.ok());
}

TEST(CpuBackend, AnImageTooLargeForMemoryIsAnErrorNotACrash) {
    if (test::kAddressSanitizer)
        GTEST_SKIP() << "AddressSanitizer aborts on absurd allocations instead of throwing std::bad_alloc";
    const std::uint8_t pixel = 0;
    const int side = 1 << 24;  // 2^48 pixels of RGBA float: more than any address space allows
    const ConstImageView huge(&pixel, side, side, 4, Depth::F32, static_cast<std::size_t>(side) * 16);
    const RunResult r = cpu::makeCpuBackend()->run(specOf(identityKernel()), huge, "parallel");
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(r.error.empty());
}

TEST(CpuBackend, OneBackendServesSeveralThreadsAtOnce) {
    // The GUI and the benchmark may run filters from worker threads on one backend object.
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    std::mt19937 rng = test::testRng();
    std::vector<Image> inputs, expected;
    std::vector<FilterSpec> specs;
    for (int i = 0; i < 4; ++i) {
        inputs.push_back(test::randomImage(97 + i, 61, 1 + 2 * (i % 2), Depth::U8, rng));
        specs.push_back(specOf(test::randomKernel(5, 5, rng), {BorderMode::Wrap, 0}, kFloat));
        expected.push_back(cpu::referenceFilter(specs.back(), inputs.back().cview()));
    }
    std::vector<RunResult> results(4);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&, i] { results[i] = backend->run(specs[i], inputs[i].cview(), "parallel"); });
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < 4; ++i) {
        ASSERT_TRUE(results[i].ok()) << results[i].error;
        EXPECT_TRUE(test::imagesMatch(results[i].output, expected[i], test::exact())) << "run " << i;
    }
}

TEST(CpuBackend, FloatOutputIsF32WhateverTheInput) {
    const Image img = imageFrom(3, 1, 1, Depth::U16, {1, 2, 3});
    const RunResult r = cpu::makeCpuBackend()->run(specOf(identityKernel(), {}, kFloat), img.cview(), "parallel");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.output.depth(), Depth::F32);
    EXPECT_EQ(r.output.cview().row<float>(0)[2], 3.0f);
}

}  // namespace
}  // namespace fs
