// copyAlpha against a sample-by-sample copy: every depth pair it takes, an
// odd width and rows with padding past their end, which must stay untouched;
// and the reuse of large images' pixel blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fs/image.hpp"

namespace fs {
namespace {

// A view over `bytes` with `padSamples` samples after each row, filled with random bytes.
ImageView paddedView(std::vector<unsigned char>& bytes, int width, int height, Depth depth, std::size_t padSamples,
                     std::mt19937& rng) {
    const std::size_t stride = depthBytes(depth) * (4 * static_cast<std::size_t>(width) + padSamples);
    bytes.resize(stride * height);
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
    return ImageView{bytes.data(), width, height, 4, depth, stride};
}

double sampleAt(ConstImageView v, int x, int y, int c) {
    switch (v.depth) {
    case Depth::U8: return v.row<std::uint8_t>(y)[4 * x + c];
    case Depth::U16: return v.row<std::uint16_t>(y)[4 * x + c];
    case Depth::F32: break;
    }
    return v.row<float>(y)[4 * x + c];
}

TEST(CopyAlpha, ReplacesAlphaAloneForEveryDepth) {
    std::mt19937 rng(5);
    const struct {
        Depth from, to;
    } pairs[] = {{Depth::U8, Depth::U8}, {Depth::U16, Depth::U16}, {Depth::F32, Depth::F32}, {Depth::U8, Depth::F32},
                 {Depth::U16, Depth::F32}};
    for (const auto& p : pairs) {
        const int width = 37, height = 5;
        std::vector<unsigned char> fromBytes, toBytes;
        const ImageView from = paddedView(fromBytes, width, height, p.from, 3, rng);
        if (p.from == Depth::F32)
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < 4 * width; ++x) from.row<float>(y)[x] = static_cast<float>(rng() % 1000) / 7.0f;
        const ImageView to = paddedView(toBytes, width, height, p.to, 5, rng);
        if (p.to == Depth::F32)
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < 4 * width; ++x) to.row<float>(y)[x] = static_cast<float>(rng() % 1000) / 3.0f;
        const std::vector<unsigned char> before = toBytes;
        const ConstImageView old(before.data(), width, height, 4, p.to, to.stride);

        copyAlpha(from, to);

        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                for (int c = 0; c < 3; ++c) ASSERT_EQ(sampleAt(to, x, y, c), sampleAt(old, x, y, c)) << x << "," << y;
                ASSERT_EQ(sampleAt(to, x, y, 3), sampleAt(from, x, y, 3)) << x << "," << y;
            }
            const std::size_t rowEnd = to.rowBytes();
            EXPECT_EQ(std::memcmp(to.row<unsigned char>(y) + rowEnd, old.row<unsigned char>(y) + rowEnd, to.stride - rowEnd),
                      0)
                << "the padding after row " << y << " changed";
        }
    }
}

TEST(CopyAlpha, RefusesImagesThatDiffer) {
    Image a(4, 4, 4, Depth::U8), b(4, 5, 4, Depth::U8), c(4, 4, 3, Depth::U8), f(4, 4, 4, Depth::F32);
    EXPECT_THROW(copyAlpha(a.cview(), b.view()), std::invalid_argument);
    EXPECT_THROW(copyAlpha(a.cview(), c.view()), std::invalid_argument);
    EXPECT_THROW(copyAlpha(f.cview(), a.view()), std::invalid_argument);
}

// A large image's block is kept when it is freed and taken by the next image
// that fits it; small ones are freed, and at most two are kept.
TEST(ImageBlocks, ALargeBlockIsReusedBySameSizedImages) {
    const std::uint8_t* first = nullptr;
    {
        Image a(4096, 1536, 4, Depth::U8);  // 24 MB
        first = a.data();
    }
    if (keptImageBlocks().count == 0) GTEST_SKIP() << "this build keeps no image blocks (sanitizers)";
    {
        Image same(4096, 1536, 4, Depth::U8);
        EXPECT_EQ(same.data(), first);
        same.fillBytes(1);  // the whole block is writable
    }
    {
        // A block half as large again as asked for is not handed out.
        Image smaller(4096, 1024, 4, Depth::U8);
        EXPECT_NE(smaller.data(), first);
        Image small(64, 64, 1, Depth::U8);
    }
    for (int i = 0; i < 4; ++i) Image big(4096 + 1024 * i, 1536, 4, Depth::U8);
    const KeptImageBlocks kept = keptImageBlocks();
    EXPECT_LE(kept.count, 2);
    EXPECT_GE(kept.bytes, std::size_t{16} << 20);
}

}  // namespace
}  // namespace fs
