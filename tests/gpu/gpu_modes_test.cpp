// Every CUDA mode x border x depth x channel count against fs::cpu::referenceFilter
// on fresh random images (seed printed; FS_TEST_SEED=N replays), written into
// poisoned device memory so an unwritten sample fails.
#include <tuple>

#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

struct NamedSpec {
    std::string name;
    FilterSpec spec;
    bool separable;  // rank 1: the separable mode accepts it
};

Kernel randomIntegerKernel(int w, int h, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(-3, 3);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    for (float& x : v) x = static_cast<float>(d(rng));
    v[v.size() / 2] = 4.0f;  // never all zero
    return Kernel(w, h, std::move(v));
}

std::vector<NamedSpec> specsFor(Depth depth, Border border, std::mt19937& rng, bool large) {
    const bool integerImage = depth != Depth::F32;
    std::vector<NamedSpec> out;
    FilterSpec s;
    s.border = border;
    // Non-square, non-separable integer kernel: bit-exact on integer images.
    s.kernels = {randomIntegerKernel(5, 3, rng)};
    s.output.absolute = integerImage;
    out.push_back({"int5x3", s, false});
    // Sobel magnitude: two kernels fused, integer factors in the separable mode.
    s = FilterSpec{};
    s.border = border;
    s.kernels = {sobelKernel(3, true), sobelKernel(3, false)};
    s.combine = Combine::Magnitude;
    out.push_back({"sobel-magnitude", s, true});
    // Gaussian 7x7: float weights, separable.
    s = FilterSpec{};
    s.border = border;
    s.kernels = {gaussianKernel(7, 1.5)};
    out.push_back({"gaussian7", s, true});
    if (large) return out;
    // Random float kernel 7x5 with a scale/offset and a float output.
    s = FilterSpec{};
    s.border = border;
    s.kernels = {randomKernel(7, 5, rng)};
    s.output.scale = 0.5f;
    s.output.offset = integerImage ? 3.0f : 0.125f;
    s.output.floatOutput = integerImage;
    out.push_back({"float7x5", s, false});
    // Box 5x5 of ones scaled by 1/25 (integer weights, float scale).
    s = FilterSpec{};
    s.border = border;
    s.kernels = {Kernel(5, 5, std::vector<float>(25, 1.0f))};
    s.output.scale = 1.0f / 25.0f;
    out.push_back({"box5", s, true});
    return out;
}

Border borderFor(int index, Depth depth) {
    switch (index) {
    case 0: return {BorderMode::Replicate, 0.0f};
    case 1: return {BorderMode::Reflect101, 0.0f};
    case 2: return {BorderMode::Wrap, 0.0f};
    case 3: return {BorderMode::Constant, depth == Depth::U8 ? 200.0f : depth == Depth::U16 ? 40000.0f : 0.25f};
    default: return {BorderMode::Constant, 0.0f};  // the texture mode's hardware border
    }
}

using Param = std::tuple<std::string, int, Depth, int>;  // mode, border index, depth, channels

class ModeMatrix : public ::testing::TestWithParam<Param> {};

TEST_P(ModeMatrix, RandomImagesMatchReference) {
    FS_SKIP_WITHOUT_CUDA();
    const auto& [mode, borderIndex, depth, channels] = GetParam();
    std::mt19937 rng = testRng();
    const Border border = borderFor(borderIndex, depth);
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {17, 3}, {1023, 769}};
    for (const auto& size : sizes) {
        const bool large = size.w > 100;
        const Image input = randomImage(size.w, size.h, channels, depth, rng);
        for (const NamedSpec& ns : specsFor(depth, border, rng, large)) {
            SCOPED_TRACE(ns.name + " on " + std::to_string(size.w) + "x" + std::to_string(size.h));
            Image actual;
            if (mode == "separable" && !ns.separable) {
                const auto result = runPoisoned(ns.spec, input.cview(), mode, actual);
                ASSERT_FALSE(result);
                EXPECT_NE(std::string(result.message()).find("not separable"), std::string::npos) << result.message();
                continue;
            }
            ASSERT_TRUE(runPoisoned(ns.spec, input.cview(), mode, actual));
            const Image expected = cpu::referenceFilter(ns.spec, input.cview());
            EXPECT_TRUE(matchesReference(ns.spec, input.cview(), actual, expected));
        }
    }
}

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
    const auto& [mode, borderIndex, depth, channels] = info.param;
    static const char* borders[] = {"replicate", "reflect101", "wrap", "constant", "constant0"};
    return mode + "_" + borders[borderIndex] + "_" + depthName(depth) + "_c" + std::to_string(channels);
}

INSTANTIATE_TEST_SUITE_P(Cuda, ModeMatrix,
                         ::testing::Combine(::testing::Values("global", "constant", "shared", "texture", "separable",
                                                              "registers", "auto"),
                                            ::testing::Range(0, 5),
                                            ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                                            ::testing::Values(1, 3, 4)),
                         paramName);

}  // namespace
}  // namespace fs::test
