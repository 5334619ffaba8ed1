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
