// The integer-lane arithmetic of the CUDA RGBA8 3x3 kernels (fs/lane_math.hpp),
// run on the host: lane rounding against round-half-even over every sum a
// qualifying filter can produce, the packing, the bias and clamp of signed or
// saturating weights, whole pixels against the reference's float sum
// (including the largest sums a lane may hold), and the gradient magnitude's
// rounding margin for an approximate square root.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fs/filter_spec.hpp"
#include "fs/lane_math.hpp"
#include "fs/pixel_math.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

TEST(LaneMath, ChannelsSplitIntoLanesAndPackBack) {
    EXPECT_EQ(lanes::evenChannels(0xAABBCCDDu), 0x00BB00DDu);
    EXPECT_EQ(lanes::oddChannels(0xAABBCCDDu), 0x00AA00CCu);
    // Garbage in bits 8-15 of each lane (what the shift leaves) never reaches the output.
    EXPECT_EQ(lanes::pack(0x7FBB7FDDu, 0x7FAA7FCCu), 0xAABBCCDDu);
}

// Every sum 0 .. 255 * 2^shift in each lane, the other lane at its largest,
// smallest or a random sum: both lanes round like nearbyint(sum / 2^shift).
TEST(LaneMath, RoundingIsHalfToEvenForEverySumInEitherLane) {
    std::mt19937 rng(7);
    for (int shift = 0; shift <= 8; ++shift) {
        const lanes::Rounding r = lanes::rounding(shift);
        const std::uint32_t top = 255u << shift;
        for (std::uint32_t s = 0; s <= top; ++s) {
            const std::uint32_t others[] = {0u, top, std::uniform_int_distribution<std::uint32_t>(0, top)(rng)};
            for (std::uint32_t other : others) {
                const std::uint32_t lo = lanes::roundLanes((other << 16) | s, r);
                const std::uint32_t hi = lanes::roundLanes((s << 16) | other, r);
                const auto expect = [&](std::uint32_t v) { return static_cast<std::uint32_t>(std::nearbyint(std::ldexp(double(v), -shift))); };
                ASSERT_EQ(lo & 0xFFu, expect(s)) << "shift " << shift << " sum " << s;
                ASSERT_EQ((lo >> 16) & 0xFFu, expect(other)) << "shift " << shift << " sum " << other;
                ASSERT_EQ(hi & 0xFFu, expect(other)) << "shift " << shift << " sum " << other;
                ASSERT_EQ((hi >> 16) & 0xFFu, expect(s)) << "shift " << shift << " sum " << s;
            }
        }
    }
}

std::optional<lanes::LaneForm> formOf(const Kernel& k, int maxShift = 8) {
    const std::optional<DyadicKernel> d = dyadicForm(k, maxShift);
    return d ? lanes::laneForm(d->numerators, d->shift) : std::nullopt;
}

TEST(LaneMath, LaneFormsBiasNegativeWeightsAndClampWhatCanLeaveTheByteRange) {
    ASSERT_TRUE(formOf(gaussianKernel(3, 0.0)));
    EXPECT_EQ(formOf(gaussianKernel(3, 0.0))->bias, 0u);
    EXPECT_FALSE(formOf(gaussianKernel(3, 0.0))->clamps);
    EXPECT_TRUE(formOf(gaussianKernel(5, 0.0)));   // sums of 256 / 2^8: 255 * 256 + 128 < 2^16
    EXPECT_FALSE(formOf(gaussianKernel(7, 0.0)));  // 2^12: too wide for a lane
    EXPECT_FALSE(formOf(boxKernel(3)));            // 1/9 is not dyadic
    const std::optional<lanes::LaneForm> sobel = formOf(sobelKernel(3, true));
    ASSERT_TRUE(sobel);
    EXPECT_EQ(sobel->bias, 255u * 4u);  // 4 = the negative weights' |n| added up; even already
    EXPECT_TRUE(sobel->clamps);
    ASSERT_TRUE(formOf(laplacian8Kernel()));
    EXPECT_EQ(formOf(laplacian8Kernel())->bias, 255u * 8u);
    ASSERT_TRUE(formOf(Kernel(3, 1, {0.5f, 0.5f, 0.25f})));  // sums above 1 saturate: clamped
    EXPECT_TRUE(formOf(Kernel(3, 1, {0.5f, 0.5f, 0.25f}))->clamps);
    // The bias is a multiple of 2^(shift+1) so the quotient keeps its parity: 255 * 3 = 765 -> 768.
    const std::optional<lanes::LaneForm> odd = lanes::laneForm({-3, 8}, 2);
    ASSERT_TRUE(odd);
    EXPECT_EQ(odd->bias, 768u);
    EXPECT_TRUE(lanes::fits({255}, 8));
    EXPECT_FALSE(lanes::fits({256}, 9));        // 255 * 256 + 256 = 2^16
    EXPECT_FALSE(lanes::fits({-129, 128}, 0));  // bias 255 * 129 + 255 * 128 >= 2^16
    EXPECT_TRUE(lanes::fits({-128, 128}, 0));
}

TEST(LaneMath, MagnitudeTakesIntegerKernelsWhoseSumsFitASignedLane) {
    const auto fits = [](const Kernel& k) {
        const std::optional<DyadicKernel> d = dyadicForm(k, 8);
        return d && lanes::magnitudeFits(d->numerators, d->shift);
    };
    EXPECT_TRUE(fits(sobelKernel(3, true)));
    EXPECT_TRUE(fits(scharrKernel(false)));
    EXPECT_TRUE(fits(prewittKernel(true)));
    EXPECT_FALSE(fits(gaussianKernel(3, 0.0)));  // 1/16: roots of half-integers could tie
    EXPECT_TRUE(lanes::magnitudeFits({128, -128}, 0));
    EXPECT_FALSE(lanes::magnitudeFits({129}, 0));  // 255 * 129 > 32767
}

// A gradient word hi * 2^16 + lo + kGradientBias, summed up with wrapping
// 32-bit arithmetic, reads back both signed lanes and their squares.
TEST(LaneMath, GradientLanesReadBackSigned) {
    for (int hi : {-32768, -1020, -1, 0, 1, 1020, 32767})
        for (int lo : {-32768, -1020, -1, 0, 1, 1020, 32767}) {
            const std::uint32_t w = (static_cast<std::uint32_t>(hi) << 16) + static_cast<std::uint32_t>(lo) +
                                    lanes::kGradientBias;
            EXPECT_EQ(lanes::highLane(w), hi) << hi << " " << lo;
            EXPECT_EQ(lanes::lowLaneTimes65536(w), lo * 65536) << hi << " " << lo;
            const std::uint32_t zero = lanes::kGradientBias;  // both lanes 0
            EXPECT_EQ(lanes::lowSquares(w, zero) - lanes::kSquaresBase, static_cast<std::uint32_t>(lo * lo));
            EXPECT_EQ(lanes::highSquares(zero, w) - lanes::kSquaresBase, static_cast<std::uint32_t>(hi * hi));
        }
}

TEST(LaneMath, GradientPairCentreFindsSeparableGradientPairs) {
    const auto centre = [](const Kernel& a, const Kernel& b) {
        const std::optional<DyadicKernel> da = dyadicForm(a, 8), db = dyadicForm(b, 8);
        std::vector<int> n = da->numerators;
        n.insert(n.end(), db->numerators.begin(), db->numerators.end());
        return lanes::gradientPairCentre(n);
    };
    EXPECT_EQ(centre(sobelKernel(3, true), sobelKernel(3, false)), 2);
    EXPECT_EQ(centre(sobelKernel(3, false), sobelKernel(3, true)), 2);  // either order
    EXPECT_EQ(centre(prewittKernel(true), prewittKernel(false)), 1);
    Kernel negated = sobelKernel(3, false);
    for (float& w : negated.weights) w = -w;
    EXPECT_EQ(centre(sobelKernel(3, true), negated), 2);  // either sign
    EXPECT_FALSE(centre(scharrKernel(true), scharrKernel(false)));  // [3 10 3]: outer weights not 1
    EXPECT_FALSE(centre(sobelKernel(3, true), sobelKernel(3, true)));  // both horizontal
    EXPECT_FALSE(centre(sobelKernel(3, true), prewittKernel(false)));  // different centres
    EXPECT_FALSE(centre(laplacian8Kernel(), sharpenKernel()));
    EXPECT_FALSE(lanes::gradientPairCentre({1, 0, -1}));
}

// Whole pixels: the kernel's per-word multiply-adds (from the bias), rounding,
// clamp and packing against the reference's float sum in row-major order,
// then saturateU8.
TEST(LaneMath, PixelsEqualTheReferenceFloatSum) {
    std::mt19937 rng(11);
    std::vector<Kernel> kernels{gaussianKernel(3, 0.0), gaussianKernel(5, 0.0),
                                Kernel(3, 3, std::vector<float>(9, 1.0f / 16.0f)),
                                Kernel(3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0}),
                                laplacian4Kernel(), laplacian8Kernel(), sharpenKernel(), embossKernel(),
                                sobelKernel(3, true), scharrKernel(false),
                                Kernel(3, 3, {-1 / 16.f, -2 / 16.f, -1 / 16.f, -2 / 16.f, 28 / 16.f, -2 / 16.f,
                                              -1 / 16.f, -2 / 16.f, -1 / 16.f}),  // signed, shift 4
                                Kernel(3, 1, {0.5f, 0.5f, 0.25f})};                 // saturates, shift 2
    std::vector<float> full(9);  // numerators adding to exactly 256
    int left = 256;
    for (int i = 0; i < 8; ++i) {
        const int n = std::uniform_int_distribution<int>(0, left / 3)(rng);
        full[i] = static_cast<float>(n) / 256.0f, left -= n;
    }
    full[8] = static_cast<float>(left) / 256.0f;
    kernels.emplace_back(3, 3, full);
    for (const Kernel& k : kernels) {
        const std::optional<DyadicKernel> d = dyadicForm(k, 8);
        ASSERT_TRUE(d);
        const std::optional<lanes::LaneForm> form = lanes::laneForm(d->numerators, d->shift);
        ASSERT_TRUE(form) << "kernel " << k.width << "x" << k.height;
        const lanes::Rounding r = lanes::rounding(d->shift);
        const lanes::Clamp c = lanes::clamp(*form);
        const std::size_t taps = k.weights.size();
        for (int trial = 0; trial < 20000; ++trial) {
            std::vector<std::uint32_t> px(taps);
            for (auto& p : px) p = trial < 2 ? (trial ? 0xFFFFFFFFu : 0u) : static_cast<std::uint32_t>(rng());
            if (trial == 2)  // largest positive and negative sums in every lane
                for (std::size_t t = 0; t < taps; ++t) px[t] = d->numerators[t] > 0 ? 0xFFFFFFFFu : 0u;
            if (trial == 3)
                for (std::size_t t = 0; t < taps; ++t) px[t] = d->numerators[t] < 0 ? 0xFFFFFFFFu : 0u;
            std::uint32_t even = form->bias * 0x00010001u, odd = even;
            for (std::size_t t = 0; t < taps; ++t) {
                const auto w = static_cast<std::uint32_t>(d->numerators[t]);
                even += w * lanes::evenChannels(px[t]), odd += w * lanes::oddChannels(px[t]);
            }
            std::uint32_t e = lanes::roundLanes(even, r), o = lanes::roundLanes(odd, r);
            if (form->clamps) e = lanes::clampLanes(e, c), o = lanes::clampLanes(o, c);
            const std::uint32_t got = lanes::pack(e, o);
            for (int ch = 0; ch < 4; ++ch) {
                float acc = 0.0f;
                for (std::size_t t = 0; t < taps; ++t) acc += k.weights[t] * static_cast<float>((px[t] >> (8 * ch)) & 0xFFu);
                ASSERT_EQ((got >> (8 * ch)) & 0xFFu, saturateU8(acc))
                    << "kernel " << k.width << "x" << k.height << " shift " << d->shift << " channel " << ch;
            }
        }
    }
}

// The magnitude kernels' arithmetic: gradient words of both kernels from
// kGradientBias, summed as the 2D kernel sums them and as the separable one
// does (differences and [1 b 1] sums per row) where the pair allows, then
// magnitudeWord, against the reference's sqrt(gx * gx + gy * gy) in float,
// then saturateU8.
TEST(LaneMath, MagnitudePixelsEqualTheReference) {
    std::mt19937 rng(13);
    const std::pair<Kernel, Kernel> pairs[] = {{sobelKernel(3, true), sobelKernel(3, false)},
                                               {scharrKernel(true), scharrKernel(false)},
                                               {prewittKernel(true), prewittKernel(false)},
                                               {laplacian8Kernel(), sharpenKernel()}};
    for (const auto& [kx, ky] : pairs) {
        const std::optional<DyadicKernel> dx = dyadicForm(kx, 8), dy = dyadicForm(ky, 8);
        ASSERT_TRUE(dx && dy && lanes::magnitudeFits(dx->numerators, 0) && lanes::magnitudeFits(dy->numerators, 0));
        std::vector<int> both = dx->numerators;
        both.insert(both.end(), dy->numerators.begin(), dy->numerators.end());
        const std::optional<int> centre = lanes::gradientPairCentre(both);
        const std::uint32_t b = centre ? static_cast<std::uint32_t>(*centre) : 0u;
        for (int trial = 0; trial < 50000; ++trial) {
            std::uint32_t px[9];
            for (auto& p : px) p = static_cast<std::uint32_t>(rng());
            if (trial < 2)
                for (int t = 0; t < 9; ++t) px[t] = (dx->numerators[t] > 0) == (trial == 0) ? 0xFFFFFFFFu : 0u;
            std::uint32_t ex = lanes::kGradientBias, ox = ex, ey = ex, oy = ex;
            for (int t = 0; t < 9; ++t) {
                const auto wx = static_cast<std::uint32_t>(dx->numerators[t]), wy = static_cast<std::uint32_t>(dy->numerators[t]);
                ex += wx * lanes::evenChannels(px[t]), ox += wx * lanes::oddChannels(px[t]);
                ey += wy * lanes::evenChannels(px[t]), oy += wy * lanes::oddChannels(px[t]);
            }
            const std::uint32_t got = lanes::magnitudeWord(ex, ey, ox, oy);
            if (centre) {
                // rgba8GradientLaneKernel's sums; x and y may be swapped: the magnitude is symmetric.
                std::uint32_t words[2][2] = {{lanes::kGradientBias, lanes::kGradientBias},
                                             {lanes::kGradientBias, lanes::kGradientBias}};  // [even, odd][x, y]
                for (int h = 0; h < 2; ++h)
                    for (int row = 0; row < 3; ++row) {
                        std::uint32_t p[3];
                        for (int c = 0; c < 3; ++c)
                            p[c] = h ? lanes::oddChannels(px[3 * row + c]) : lanes::evenChannels(px[3 * row + c]);
                        const std::uint32_t d = p[2] - p[0], s = b * p[1] + (p[0] + p[2]);
                        words[h][0] += row == 1 ? b * d : d;
                        if (row != 1) words[h][1] += row == 2 ? s : 0u - s;
                    }
                ASSERT_EQ(lanes::magnitudeWord(words[0][0], words[0][1], words[1][0], words[1][1]), got);
            }
            for (int ch = 0; ch < 4; ++ch) {
                float gx = 0.0f, gy = 0.0f;
                for (int t = 0; t < 9; ++t) {
                    const float v = static_cast<float>((px[t] >> (8 * ch)) & 0xFFu);
                    gx += kx.weights[t] * v, gy += ky.weights[t] * v;
                }
                ASSERT_EQ((got >> (8 * ch)) & 0xFFu, saturateU8(combineMagnitude(gx, gy))) << "channel " << ch;
            }
        }
    }
}

// Why an approximate root is exact here: for every sum gx^2 + gy^2 below
// 255.5^2, a root up to 16 ulps off (sqrt.approx is within a few) still
// rounds, through 2^23 as rootByte does, to the correctly rounded
// root's nearest integer; sums from 255.5^2 up give 255.
TEST(LaneMath, MagnitudeRootsRoundTheSameWithinSixteenUlps) {
    for (std::uint32_t n = 0; n <= 65280u; ++n) {
        const float root = std::sqrt(static_cast<float>(n));
        const auto expected = static_cast<std::uint32_t>(std::nearbyint(root));
        float lo = root, hi = root;
        for (int ulp = 0; ulp < 16; ++ulp) lo = std::nextafter(lo, -1.0f), hi = std::nextafter(hi, 1e9f);
        for (float r : {lo, root, hi})
            ASSERT_EQ(lanes::floatToBits(r + 8388608.0f) & 0xFFu, expected) << "sum " << n << " root " << r;
    }
    const auto magnitude = [](int gx, int gy) {
        const auto word = [](int g) { return static_cast<std::uint32_t>(g) + lanes::kGradientBias; };
        return lanes::rootByte(lanes::lowSquares(word(gx), word(gy))) & 0xFFu;
    };
    EXPECT_EQ(magnitude(180, 181), 255u);  // 255.2: rounds to 255
    EXPECT_EQ(magnitude(181, 181), 255u);  // 255.97: saturates
    EXPECT_EQ(magnitude(-32768, -32768), 255u);  // the largest sum, 2^31, does not wrap
    EXPECT_EQ(magnitude(32767, -32768), 255u);
    EXPECT_EQ(magnitude(3, -4), 5u);
    EXPECT_EQ(magnitude(0, 0), 0u);
}

}  // namespace
}  // namespace fs
