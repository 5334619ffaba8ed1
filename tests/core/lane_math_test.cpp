// The integer-lane arithmetic of the CUDA RGBA8 3x3 kernel (fs/lane_math.hpp),
// run on the host: lane rounding against round-half-even over every sum a
// qualifying filter can produce, the packing, and whole pixels against the
// reference's float sum, including the largest sums a lane may hold.
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

TEST(LaneMath, FitsOnlyNonNegativeSumsThatCannotOverflowOrSaturate) {
    const auto fits = [](const Kernel& k, int maxShift = 8) {
        const std::optional<DyadicKernel> d = dyadicForm(k, maxShift);
        return d && lanes::fits(d->numerators, d->shift);
    };
    EXPECT_TRUE(fits(gaussianKernel(3, 0.0)));
    EXPECT_TRUE(fits(gaussianKernel(5, 0.0)));  // sums of 256 / 2^8: 255 * 256 + 128 < 2^16
    EXPECT_FALSE(fits(gaussianKernel(7, 0.0)));  // 2^12: too wide for a lane
    EXPECT_FALSE(fits(sobelKernel(3, true)));    // negative weights
    EXPECT_FALSE(fits(boxKernel(3)));            // 1/9 is not dyadic
    EXPECT_FALSE(fits(Kernel(3, 1, {0.5f, 0.5f, 0.25f})));  // sum above 1 would saturate
    EXPECT_TRUE(lanes::fits({255}, 8));
    EXPECT_FALSE(lanes::fits({256}, 9));  // 255 * 256 + 256 = 2^16
}

// Whole pixels: the kernel's per-word multiply-adds, rounding and packing
// against the reference's float sum in row-major order, then saturateU8.
TEST(LaneMath, PixelsEqualTheReferenceFloatSum) {
    std::mt19937 rng(11);
    std::vector<Kernel> kernels{gaussianKernel(3, 0.0), gaussianKernel(5, 0.0),
                                Kernel(3, 3, std::vector<float>(9, 1.0f / 16.0f)),
                                Kernel(3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0})};
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
        ASSERT_TRUE(d && lanes::fits(d->numerators, d->shift));
        const lanes::Rounding r = lanes::rounding(d->shift);
        const std::size_t taps = k.weights.size();
        for (int trial = 0; trial < 20000; ++trial) {
            std::vector<std::uint32_t> px(taps);
            for (auto& p : px) p = trial < 2 ? (trial ? 0xFFFFFFFFu : 0u) : static_cast<std::uint32_t>(rng());
            std::uint32_t even = 0, odd = 0;
            for (std::size_t t = 0; t < taps; ++t) {
                const auto w = static_cast<std::uint32_t>(d->numerators[t]);
                even += w * lanes::evenChannels(px[t]), odd += w * lanes::oddChannels(px[t]);
            }
            const std::uint32_t got = lanes::pack(lanes::roundLanes(even, r), lanes::roundLanes(odd, r));
            for (int c = 0; c < 4; ++c) {
                float acc = 0.0f;
                for (std::size_t t = 0; t < taps; ++t) acc += k.weights[t] * static_cast<float>((px[t] >> (8 * c)) & 0xFFu);
                ASSERT_EQ((got >> (8 * c)) & 0xFFu, saturateU8(acc)) << "kernel " << k.width << "x" << k.height << " channel " << c;
            }
        }
    }
}

}  // namespace
}  // namespace fs
