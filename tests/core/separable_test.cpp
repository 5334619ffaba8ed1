#include <gtest/gtest.h>

#include <cmath>

#include "fs/filter_spec.hpp"
#include "fs/presets.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

void expectReproduces(const Kernel& k, const Separable& s, float tolerance) {
    ASSERT_EQ(s.row.size(), static_cast<std::size_t>(k.width));
    ASSERT_EQ(s.column.size(), static_cast<std::size_t>(k.height));
    float maxAbs = 0.0f;
    for (float w : k.weights) maxAbs = std::max(maxAbs, std::fabs(w));
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            EXPECT_NEAR(s.column[y] * s.row[x], k.at(x, y), tolerance * maxAbs) << "at " << x << "," << y;
}

TEST(Separate, FindsEveryRankOnePreset) {
    const Kernel kernels[] = {boxKernel(5),          gaussianKernel(7, 0.0),  gaussianKernel(9, 2.3), sobelKernel(3, true),
                              sobelKernel(5, false), sobelKernel(7, true),    scharrKernel(false),    prewittKernel(true),
                              identityKernel(),      gaussianKernel(63, 9.0), boxKernel(1)};
    for (const Kernel& k : kernels) {
        const std::optional<Separable> s = separate(k);
        ASSERT_TRUE(s.has_value()) << k.width << "x" << k.height;
        expectReproduces(k, *s, 1e-5f);
    }
}

TEST(Separate, RefusesKernelsOfHigherRank) {
    for (const Kernel& k : {laplacian4Kernel(), laplacian8Kernel(), sharpenKernel(), embossKernel(), logKernel(9, 1.4),
                            unsharpKernel(5, 1.0, 1.5)})
        EXPECT_FALSE(separate(k).has_value()) << k.width << "x" << k.height;
}

TEST(Separate, RandomRankOneRectangularKernels) {
    std::mt19937 rng = test::testRng();
    std::uniform_real_distribution<float> d(-2.0f, 2.0f);
    for (int trial = 0; trial < 50; ++trial) {
        const int w = 1 + 2 * static_cast<int>(rng() % 10), h = 1 + 2 * static_cast<int>(rng() % 10);
        std::vector<float> row(static_cast<std::size_t>(w)), column(static_cast<std::size_t>(h));
        for (float& v : row) v = d(rng);
        for (float& v : column) v = d(rng);
        const Kernel k = Kernel::outer(column, row);
        const std::optional<Separable> s = separate(k);
        ASSERT_TRUE(s.has_value()) << w << "x" << h;
        expectReproduces(k, *s, 1e-5f);
    }
}

TEST(Separate, ANoiseAboveTheToleranceBreaksSeparability) {
    Kernel k = gaussianKernel(5, 1.0);
    float maxAbs = 0.0f;
    for (float w : k.weights) maxAbs = std::max(maxAbs, w);
    k.at(0, 4) += 1e-3f * maxAbs;
    EXPECT_FALSE(separate(k).has_value());
    EXPECT_TRUE(separate(k, 1e-2f).has_value()) << "a looser tolerance accepts it";
}

TEST(Separate, RefusesAllZeroAndInvalidKernels) {
    EXPECT_FALSE(separate(Kernel(3, 3, std::vector<float>(9, 0.0f))).has_value());
    EXPECT_FALSE(separate(Kernel(2, 2, {1, 1, 1, 1})).has_value()) << "even sizes are invalid";
}

}  // namespace
}  // namespace fs

namespace fs {
namespace {

TEST(DyadicForm, BinomialGaussiansAreDyadic) {
    const std::optional<DyadicKernel> g3 = dyadicForm(gaussianKernel(3, 0.0), 8);
    ASSERT_TRUE(g3);
    EXPECT_EQ(g3->shift, 4);
    EXPECT_EQ(g3->numerators, (std::vector<int>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
    const std::optional<DyadicKernel> g5 = dyadicForm(gaussianKernel(5, 0.0), 8);
    ASSERT_TRUE(g5);
    EXPECT_EQ(g5->shift, 8);
    EXPECT_EQ(g5->numerators[12], 36);  // 6/16 * 6/16 * 256
}

TEST(DyadicForm, IntegerKernelsNeedNoShiftAndKeepTheirSigns) {
    const std::optional<DyadicKernel> s = dyadicForm(sobelKernel(3, true), 8);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->shift, 0);
    EXPECT_EQ(s->numerators, (std::vector<int>{-1, 0, 1, -2, 0, 2, -1, 0, 1}));
}

TEST(DyadicForm, RefusesWeightsThatAreNotExactlyDyadicWithinTheShift) {
    EXPECT_FALSE(dyadicForm(boxKernel(3), 16));                        // 1/9
    EXPECT_FALSE(dyadicForm(Kernel(1, 1, {0.1f}), 16));                 // 0.1f needs shift 27
    EXPECT_FALSE(dyadicForm(Kernel(1, 1, {1.0f / 512.0f}), 8));         // shift 9 > 8
    EXPECT_TRUE(dyadicForm(Kernel(1, 1, {1.0f / 512.0f}), 9));
    EXPECT_FALSE(dyadicForm(Kernel(1, 1, {33554432.0f}), 0));           // 2^25: numerator too large
    EXPECT_FALSE(dyadicForm(Kernel(1, 1, {std::nanf("")}), 8));
}

}  // namespace
}  // namespace fs
