// NaN and infinities, as docs/cli.md "NaN and infinities" defines them: float outputs carry
// the IEEE result of the reference's multiply-adds (a window holding NaN gives
// NaN, +Inf alone gives +Inf, +Inf and -Inf together give NaN); stores to u8/u16
// map NaN to 0, +Inf (and anything above the range) to the maximum, -Inf to 0.
// Every CPU mode must agree with the reference on where each class lands.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/pixel_math.hpp"
#include "test_support.hpp"
#ifdef FS_TEST_OPENCV_MODE
#include "fs/cpu/opencv_backend.hpp"
#endif

namespace fs::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::unique_ptr<Backend> cpuBackend() {
#ifdef FS_TEST_OPENCV_MODE
    return cpu::makeCpuBackendWithOpenCV();
#else
    return cpu::makeCpuBackend();
#endif
}

std::vector<std::string> modes() {
    std::vector<std::string> ids;
    for (const ModeInfo& m : cpuBackend()->modes()) {
#ifdef FS_TEST_OPENCV_MODE
        // OpenCV as its users call it follows OpenCV's NaN/Inf rules (its description says so).
        if (m.id == cpu::kOpenCvNativeMode) continue;
#endif
        ids.push_back(m.id);
    }
    return ids;
}

// cv::filter2D into float: drops zero weights and may sum in double (IPP).
bool isOpenCvExact(const std::string& mode) {
#ifdef FS_TEST_OPENCV_MODE
    return mode == cpu::kOpenCvExactMode;
#else
    static_cast<void>(mode);
    return false;
#endif
}

enum class Kind { Finite, NaN, PosInf, NegInf };
Kind kindOf(float v) {
    if (std::isnan(v)) return Kind::NaN;
    if (std::isinf(v)) return v > 0 ? Kind::PosInf : Kind::NegInf;
    return Kind::Finite;
}
const char* name(Kind k) {
    switch (k) {
    case Kind::Finite: return "finite";
    case Kind::NaN: return "NaN";
    case Kind::PosInf: return "+Inf";
    case Kind::NegInf: return "-Inf";
    }
    return "?";
}

// Random finite floats with a NaN, a +Inf, a -Inf and a +Inf/-Inf pair planted
// far enough apart that their 3x3 windows are easy to tell apart.
Image plantedImage(int channels, std::mt19937& rng) {
    Image img = randomImage(23, 17, channels, Depth::F32, rng);
    auto set = [&](int x, int y, float v) {
        for (int c = 0; c < channels; ++c) img.view().row<float>(y)[x * channels + c] = v;
    };
    set(3, 3, kNaN);
    set(12, 3, kInf);
    set(19, 4, -kInf);
    set(5, 12, kInf);
    set(6, 12, -kInf);  // windows holding both: Inf - Inf
    set(0, 16, kNaN);   // a corner: the border repeats it
    return img;
}

// What IEEE arithmetic gives for a window of strictly positive weights,
// worked out from the window's contents alone (not from any filter code).
Kind expectedForPositiveWeights(ConstImageView in, int x, int y, int c, int radius, BorderMode border) {
    bool nan = false, pos = false, neg = false;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
            const int sx = borderIndex(x + dx, in.width, border), sy = borderIndex(y + dy, in.height, border);
            const float v = in.row<float>(sy)[sx * in.channels + c];
            nan |= std::isnan(v);
            pos |= v == kInf;
            neg |= v == -kInf;
        }
    if (nan || (pos && neg)) return Kind::NaN;
    if (pos) return Kind::PosInf;
    if (neg) return Kind::NegInf;
    return Kind::Finite;
}

TEST(NanInf, FloatOutputPropagatesIeeeResultsInEveryMode) {
    std::mt19937 rng = testRng();
    for (int channels : {1, 3, 4})
        for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap}) {
            const Image input = plantedImage(channels, rng);
            FilterSpec spec;
            spec.kernels = {Kernel(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1})};  // positive: no 0 x Inf
            for (float& w : spec.kernels[0].weights) w /= 16.0f;
            spec.border.mode = border;
            spec.output.scale = 2.0f;
            spec.output.offset = -1.0f;
            for (const std::string& mode : modes()) {
                SCOPED_TRACE("mode " + mode + ", " + std::to_string(channels) + " channels, border " + borderModeName(border));
                const RunResult r = cpuBackend()->run(spec, input.cview(), mode);
                ASSERT_TRUE(r.ok()) << r.error;
                ASSERT_EQ(r.output.depth(), Depth::F32);
                int nonFinite = 0;
                for (int y = 0; y < input.height(); ++y)
                    for (int x = 0; x < input.width(); ++x)
                        for (int c = 0; c < channels; ++c) {
                            const Kind want = expectedForPositiveWeights(input.cview(), x, y, c, 1, border);
                            const Kind got = kindOf(r.output.cview().row<float>(y)[x * channels + c]);
                            ASSERT_EQ(name(got), std::string(name(want))) << "at (" << x << "," << y << ") channel " << c;
                            nonFinite += want != Kind::Finite;
                        }
                EXPECT_GE(nonFinite, 40 * channels);  // the planted values reached the output (windows overlap)
            }
        }
}

// A float box of 9 rows or more (mode parallel sums its columns from suffix and
// prefix sums, never subtracting): each window still holds exactly its own
// NaN and infinities, in every mode and on every kind of border.
TEST(NanInf, LargeFloatBoxesKeepNonFiniteValuesInTheirWindows) {
    std::mt19937 rng = testRng();
    for (int channels : {1, 3, 4})
        for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap}) {
            const Image input = plantedImage(channels, rng);
            FilterSpec spec;
            spec.kernels = {Kernel(9, 9, std::vector<float>(81, 1.0f / 81.0f))};
            spec.border.mode = border;
            for (const std::string& mode : modes()) {
                SCOPED_TRACE("mode " + mode + ", " + std::to_string(channels) + " channels, border " + borderModeName(border));
                const RunResult r = cpuBackend()->run(spec, input.cview(), mode);
                ASSERT_TRUE(r.ok()) << r.error;
                for (int y = 0; y < input.height(); ++y)
                    for (int x = 0; x < input.width(); ++x)
                        for (int c = 0; c < channels; ++c) {
                            const Kind want = expectedForPositiveWeights(input.cview(), x, y, c, 4, border);
                            const Kind got = kindOf(r.output.cview().row<float>(y)[x * channels + c]);
                            ASSERT_EQ(name(got), std::string(name(want))) << "at (" << x << "," << y << ") channel " << c;
                        }
            }
        }
}

// A zero weight over an infinity: 0 x Inf = NaN in the reference and the parallel
// mode. cv::filter2D drops zero weights before it sums, so in mode opencv-exact those
// samples stay finite (docs/cli.md "NaN and infinities" says so).
TEST(NanInf, ZeroWeightOverAnInfinity) {
    Image input(9, 9, 1, Depth::F32);
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 9; ++x) input.view().row<float>(y)[x] = 1.0f;
    input.view().row<float>(4)[4] = kInf;
    FilterSpec spec;
    spec.kernels = {Kernel(3, 3, {0, 1, 0, 1, 1, 1, 0, 1, 0})};
    spec.border.mode = BorderMode::Replicate;
    for (const std::string& mode : modes()) {
        SCOPED_TRACE("mode " + mode);
        const RunResult r = cpuBackend()->run(spec, input.cview(), mode);
        ASSERT_TRUE(r.ok()) << r.error;
        const float diagonal = r.output.cview().row<float>(3)[3], beside = r.output.cview().row<float>(4)[3];
        EXPECT_EQ(beside, kInf);
        if (isOpenCvExact(mode)) EXPECT_EQ(diagonal, 5.0f);
        else EXPECT_TRUE(std::isnan(diagonal)) << diagonal;
    }
}

// |v| turns -Inf into +Inf; NaN stays NaN.
TEST(NanInf, AbsoluteMapsMinusInfToPlusInf) {
    std::mt19937 rng = testRng();
    const Image input = plantedImage(1, rng);
    FilterSpec spec;
    spec.kernels = {Kernel(1, 1, {1.0f})};
    spec.output.absolute = true;
    for (const std::string& mode : modes()) {
        SCOPED_TRACE("mode " + mode);
        const RunResult r = cpuBackend()->run(spec, input.cview(), mode);
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_TRUE(std::isnan(r.output.cview().row<float>(3)[3]));
        EXPECT_EQ(r.output.cview().row<float>(4)[19], kInf);
        EXPECT_EQ(r.output.cview().row<float>(3)[12], kInf);
    }
}

// Integer outputs: NaN -> 0, +Inf and overflow -> max, -Inf -> 0, the same in every mode.
template <class T> void checkIntegerStores(Depth depth, double maxValue) {
    std::mt19937 rng = testRng();
    Image input = randomImage(15, 9, 1, depth, rng);
    // Row 0: 1s; row 1: 0s; row 2: the maximum; the rest random. Weights and
    // scales near FLT_MAX overflow to +-Inf.
    for (int x = 0; x < input.width(); ++x) {
        input.view().row<T>(0)[x] = 1;
        input.view().row<T>(1)[x] = 0;
        input.view().row<T>(2)[x] = static_cast<T>(maxValue);
    }
    struct Case {
        const char* what;
        std::vector<float> weights;  // 3x1
        float scale;
        int row;
        double expected;
    };
    const float big = 3.0e38f;
    const Case cases[] = {
        {"+Inf (10 x 3e38)", {0, 10, 0}, big, 0, maxValue},
        {"-Inf (10 x -3e38)", {0, 10, 0}, -big, 0, 0},
        {"NaN (max x 3e38 twice, minus max x 3e38)", {big, big, -big}, 1.0f, 2, 0},
        {"finite overflow past the range", {0, 1, 0}, 1.0e10f, 0, maxValue},
        {"0 x 3e38 stays 0", {0, 10, 0}, big, 1, 0},
    };
    for (const Case& k : cases) {
        FilterSpec spec;
        spec.kernels = {Kernel(3, 1, k.weights)};
        spec.border.mode = BorderMode::Replicate;
        spec.output.scale = k.scale;
        for (const std::string& mode : modes()) {
            // cv::filter2D may sum in double (IPP), where max x 3e38 does not overflow: +Inf there, not NaN.
            if (isOpenCvExact(mode) && k.row == 2) continue;
            SCOPED_TRACE(std::string(k.what) + ", mode " + mode);
            const RunResult r = cpuBackend()->run(spec, input.cview(), mode);
            ASSERT_TRUE(r.ok()) << r.error;
            ASSERT_EQ(r.output.depth(), depth);
            for (int x = 0; x < input.width(); ++x)
                ASSERT_EQ(static_cast<double>(r.output.cview().row<T>(k.row)[x]), k.expected) << "at x=" << x;
        }
    }
}

TEST(NanInf, U8StoresSaturate) { checkIntegerStores<std::uint8_t>(Depth::U8, 255); }
TEST(NanInf, U16StoresSaturate) { checkIntegerStores<std::uint16_t>(Depth::U16, 65535); }

// The shared helpers themselves, which the CUDA kernels call too.
TEST(NanInf, SaturateHelpers) {
    EXPECT_EQ(saturateU8(kNaN), 0);
    EXPECT_EQ(saturateU8(kInf), 255);
    EXPECT_EQ(saturateU8(-kInf), 0);
    EXPECT_EQ(saturateU16(kNaN), 0);
    EXPECT_EQ(saturateU16(kInf), 65535);
    EXPECT_EQ(saturateU16(-kInf), 0);
    EXPECT_TRUE(std::isnan(PixelTraits<float>::store(kNaN)));
}

}  // namespace
}  // namespace fs::test
