// NaN and infinities on the GPU follow the CPU reference (docs/cli.md "NaN and infinities"):
// float outputs hold the same IEEE class (NaN, +Inf, -Inf, finite) at every
// sample, finite ones within the usual tolerance; u8/u16 stores map NaN to 0,
// +Inf to the maximum, -Inf to 0.
#include <limits>

#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

int ieeeClass(float v) { return std::isnan(v) ? 1 : std::isinf(v) ? (v > 0 ? 2 : 3) : 0; }

TEST(CudaNanInf, FloatImagesMatchTheReferenceClassBySample) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (int channels : {1, 3, 4})
        for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap}) {
            Image input = randomImage(37, 29, channels, Depth::F32, rng);
            auto plant = [&](int x, int y, float v) {
                for (int c = 0; c < channels; ++c) input.view().row<float>(y)[x * channels + c] = v;
            };
            plant(3, 3, kNaN);
            plant(20, 5, kInf);
            plant(30, 9, -kInf);
            plant(8, 20, kInf);
            plant(9, 20, -kInf);
            plant(0, 28, kNaN);
            FilterSpec spec;
            spec.kernels = {Kernel(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1})};  // positive weights: no 0 x Inf
            for (float& w : spec.kernels[0].weights) w /= 16.0f;
            spec.border.mode = border;
            spec.output.scale = 2.0f;
            spec.output.offset = -1.0f;
            const Image expected = cpu::referenceFilter(spec, input.cview());
            for (const ModeInfo& m : backend->modes()) {
                SCOPED_TRACE("mode " + m.id + ", " + std::to_string(channels) + " channels, " + borderModeName(border));
                const RunResult r = backend->run(spec, input.cview(), m.id);
                if (!r.ok() && r.error.find("mode " + m.id + ":") == 0) continue;  // mode declines this spec
                ASSERT_TRUE(r.ok()) << r.error;
                int nonFinite = 0;
                for (int y = 0; y < input.height(); ++y)
                    for (int i = 0; i < input.width() * channels; ++i) {
                        const float got = r.output.cview().row<float>(y)[i], want = expected.cview().row<float>(y)[i];
                        ASSERT_EQ(ieeeClass(got), ieeeClass(want)) << "at row " << y << " sample " << i << ": " << got
                                                                   << " vs reference " << want;
                        // Finite values: an approximate mode within its bound (the tensor mode's
                        // TF32 products: 1e-3 of the response), the others within float rounding.
                        const float relative = m.approximate ? 2e-3f : 1e-5f;
                        if (ieeeClass(want) == 0) ASSERT_NEAR(got, want, relative * (std::fabs(want) + 4.0f));
                        else ++nonFinite;
                    }
                // Planted: three lone values (9 outputs each), an Inf/-Inf pair side by side
                // (their windows' union, 12) and a NaN in a corner (at least 4 with any border).
                EXPECT_GE(nonFinite, (3 * 9 + 12 + 4) * channels);
            }
        }
}

// 0 x Inf = NaN in the reference: a mode that skips zero weights would differ.
TEST(CudaNanInf, ZeroWeightOverAnInfinityGivesNaNAsInTheReference) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    Image input(9, 9, 1, Depth::F32);
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 9; ++x) input.view().row<float>(y)[x] = 1.0f;
    input.view().row<float>(4)[4] = kInf;
    for (const Kernel& k : {Kernel(3, 3, {0, 1, 0, 1, 1, 1, 0, 1, 0}), Kernel(3, 3, {1, 0, 1, 0, 0, 0, 1, 0, 1})}) {
        FilterSpec spec;
        spec.kernels = {k};
        spec.border.mode = BorderMode::Replicate;
        const Image expected = cpu::referenceFilter(spec, input.cview());
        for (const ModeInfo& m : backend->modes()) {
            SCOPED_TRACE("mode " + m.id);
            const RunResult r = backend->run(spec, input.cview(), m.id);
            if (!r.ok() && r.error.find("mode " + m.id + ":") == 0) continue;
            ASSERT_TRUE(r.ok()) << r.error;
            for (int y = 0; y < 9; ++y)
                for (int x = 0; x < 9; ++x)
                    ASSERT_EQ(ieeeClass(r.output.cview().row<float>(y)[x]), ieeeClass(expected.cview().row<float>(y)[x]))
                        << "at (" << x << "," << y << ")";
        }
    }
}

TEST(CudaNanInf, IntegerStoresSaturateLikeTheReference) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (Depth depth : {Depth::U8, Depth::U16}) {
        Image input = randomImage(41, 7, 3, depth, rng);
        const float big = 3.0e38f;
        struct Case {
            const char* what;
            std::vector<float> weights;
            float scale;
        };
        const Case cases[] = {
            {"+Inf", {0, 10, 0}, big},
            {"-Inf", {0, 10, 0}, -big},
            {"NaN from Inf - Inf", {big, big, -big}, 1.0f},
            {"finite overflow", {0, 1, 0}, 1.0e10f},
        };
        for (const Case& k : cases) {
            FilterSpec spec;
            spec.kernels = {Kernel(3, 1, k.weights)};
            spec.border.mode = BorderMode::Replicate;
            spec.output.scale = k.scale;
            const Image expected = cpu::referenceFilter(spec, input.cview());
            for (const ModeInfo& m : backend->modes()) {
                SCOPED_TRACE(std::string(k.what) + ", mode " + m.id + (depth == Depth::U8 ? ", u8" : ", u16"));
                // An FFT's zero is a rounding residue (1e-6) that these scales blow up
                // to either extreme: its own tests hold it to its tolerance instead.
                if (m.approximate) continue;
                const RunResult r = backend->run(spec, input.cview(), m.id);
                if (!r.ok() && r.error.find("mode " + m.id + ":") == 0) continue;
                ASSERT_TRUE(r.ok()) << r.error;
                if (std::string(k.what) != "NaN from Inf - Inf") {
                    EXPECT_TRUE(imagesMatch(r.output, expected, exact()));
                    continue;
                }
                // The GPU fuses multiply-adds (one rounding): big * x + acc keeps the exact
                // product, so a sum the CPU sees as Inf - Inf = NaN (stored 0) can stay +Inf
                // there (stored as the maximum). Either extreme is right; nothing else is.
                const double maximum = depth == Depth::U8 ? 255.0 : 65535.0;
                for (int y = 0; y < input.height(); ++y)
                    for (int i = 0; i < input.width() * input.channels(); ++i) {
                        const double got = depth == Depth::U8 ? r.output.cview().row<std::uint8_t>(y)[i]
                                                              : r.output.cview().row<std::uint16_t>(y)[i];
                        const double want = depth == Depth::U8 ? expected.cview().row<std::uint8_t>(y)[i]
                                                               : expected.cview().row<std::uint16_t>(y)[i];
                        ASSERT_TRUE(got == want || got == maximum) << "at row " << y << " sample " << i << ": " << got;
                    }
            }
        }
    }
}

}  // namespace
}  // namespace fs::test
