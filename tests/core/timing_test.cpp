// coveredMs: the kernel time of a pipelined run counts overlapping pieces once.
#include <gtest/gtest.h>

#include "fs/timing.hpp"

namespace fs {
namespace {

TEST(CoveredMs, OverlapsCountOnceAndGapsNotAtAll) {
    EXPECT_DOUBLE_EQ(coveredMs({}), 0.0);
    EXPECT_DOUBLE_EQ(coveredMs({{1.0, 3.0}}), 2.0);
    // Two pieces on different streams running at once, then one after a gap.
    EXPECT_DOUBLE_EQ(coveredMs({{2.0, 5.0}, {1.0, 3.0}, {7.0, 8.0}}), 5.0);
    // One interval inside another, and intervals that only touch.
    EXPECT_DOUBLE_EQ(coveredMs({{0.0, 10.0}, {2.0, 3.0}}), 10.0);
    EXPECT_DOUBLE_EQ(coveredMs({{0.0, 1.0}, {1.0, 2.0}}), 2.0);
    // An empty or reversed interval (a piece whose events did not complete) adds nothing.
    EXPECT_DOUBLE_EQ(coveredMs({{4.0, 4.0}, {6.0, 5.0}}), 0.0);
}

}  // namespace
}  // namespace fs
