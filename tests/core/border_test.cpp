#include <gtest/gtest.h>

#include "fs/border.hpp"

namespace fs {
namespace {

// Reflect-101 repeats with period 2n-2: 0 1 2 3 4 3 2 1 | 0 1 2 ...
int reflect101ByPeriod(int p, int n) {
    if (n == 1) return 0;
    const int period = 2 * n - 2;
    int m = ((p % period) + period) % period;
    return m < n ? m : period - m;
}

TEST(BorderIndex, InsideIsIdentityForEveryMode) {
    for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap})
        for (int p = 0; p < 7; ++p) EXPECT_EQ(borderIndex(p, 7, m), p);
}

TEST(BorderIndex, ReplicateClampsAtAnyDistance) {
    EXPECT_EQ(borderIndex(-1, 5, BorderMode::Replicate), 0);
    EXPECT_EQ(borderIndex(-100, 5, BorderMode::Replicate), 0);
    EXPECT_EQ(borderIndex(5, 5, BorderMode::Replicate), 4);
    EXPECT_EQ(borderIndex(1000, 5, BorderMode::Replicate), 4);
}

TEST(BorderIndex, Reflect101MatchesThePeriodicPatternFarOutside) {
    EXPECT_EQ(borderIndex(-1, 5, BorderMode::Reflect101), 1);
    EXPECT_EQ(borderIndex(-2, 5, BorderMode::Reflect101), 2);
    EXPECT_EQ(borderIndex(5, 5, BorderMode::Reflect101), 3);
    EXPECT_EQ(borderIndex(6, 5, BorderMode::Reflect101), 2);
    for (int n : {1, 2, 3, 5, 8})
        for (int p = -70; p < 70; ++p) EXPECT_EQ(borderIndex(p, n, BorderMode::Reflect101), reflect101ByPeriod(p, n)) << "p=" << p << " n=" << n;
}

TEST(BorderIndex, WrapIsModulo) {
    EXPECT_EQ(borderIndex(-1, 5, BorderMode::Wrap), 4);
    EXPECT_EQ(borderIndex(5, 5, BorderMode::Wrap), 0);
    for (int n : {1, 2, 3, 7})
        for (int p = -70; p < 70; ++p) EXPECT_EQ(borderIndex(p, n, BorderMode::Wrap), ((p % n) + n) % n);
}

TEST(BorderIndex, ConstantAsksForTheBorderValue) {
    EXPECT_EQ(borderIndex(-1, 5, BorderMode::Constant), -1);
    EXPECT_EQ(borderIndex(5, 5, BorderMode::Constant), -1);
}

TEST(BorderIndex, NearMatchesBorderIndexUpToOneWidthOutside) {
    for (BorderMode mode : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap})
        for (int n = 1; n <= 9; ++n)
            for (int p = -n; p < 2 * n; ++p)
                EXPECT_EQ(borderIndexNear(p, n, mode), borderIndex(p, n, mode))
                    << borderModeName(mode) << " n " << n << " p " << p;
}

TEST(ParseBorder, AcceptsEveryDocumentedSpelling) {
    Border b;
    ASSERT_TRUE(parseBorder("replicate", b));
    EXPECT_EQ(b.mode, BorderMode::Replicate);
    ASSERT_TRUE(parseBorder("reflect101", b));
    EXPECT_EQ(b.mode, BorderMode::Reflect101);
    ASSERT_TRUE(parseBorder("reflect-101", b));
    EXPECT_EQ(b.mode, BorderMode::Reflect101);
    ASSERT_TRUE(parseBorder("wrap", b));
    EXPECT_EQ(b.mode, BorderMode::Wrap);
    ASSERT_TRUE(parseBorder("constant", b));
    EXPECT_EQ(b.mode, BorderMode::Constant);
    EXPECT_EQ(b.value, 0.0f);
    ASSERT_TRUE(parseBorder("constant:-12.5", b));
    EXPECT_EQ(b.mode, BorderMode::Constant);
    EXPECT_EQ(b.value, -12.5f);
}

TEST(ParseBorder, RejectsWithAReason) {
    for (const char* bad : {"", "mirror", "constant:", "constant:abc", "constant:nan", "constant:inf", "wrap:3"}) {
        Border b;
        b.mode = BorderMode::Wrap;
        std::string why;
        EXPECT_FALSE(parseBorder(bad, b, &why)) << bad;
        EXPECT_FALSE(why.empty()) << bad;
        EXPECT_EQ(b.mode, BorderMode::Wrap) << "a failed parse must leave the border alone: " << bad;
    }
}

TEST(BorderName, RoundTripsThroughParse) {
    for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap}) {
        Border b;
        ASSERT_TRUE(parseBorder(borderModeName(m), b));
        EXPECT_EQ(b.mode, m);
    }
}

}  // namespace
}  // namespace fs
