// The CPU modes that match the reference (reference, parallel, opencv-exact)
// against results built independently in the test from cv::filter2D +
// cv::copyMakeBorder + cv::magnitude + cv::convertTo, on real photographs and
// random images. opencv-native has its own file: it is allowed OpenCV's rounding.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "cv_test_support.hpp"
#include "fs/cpu/opencv_backend.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

cv::Mat expectedByOpenCv(const FilterSpec& spec, const Image& input) {
    std::vector<cv::Mat> responses;
    for (const Kernel& k : spec.kernels) {
        const cv::Mat weights = cv::Mat(k.height, k.width, CV_32F, const_cast<float*>(k.weights.data())).clone();
        responses.push_back(test::cvFiltered(test::matOf(input), spec.border, k.radiusX(), k.radiusY(),
                                             [&](const cv::Mat& s, int b) {
                                                 cv::Mat d;
                                                 cv::filter2D(s, d, CV_32F, weights, cv::Point(-1, -1), 0.0, b);
                                                 return d;
                                             }));
    }
    cv::Mat combined = responses[0];
    if (spec.combine == Combine::Magnitude) cv::magnitude(responses[0], responses[1], combined);
    return test::cvMapped(combined, spec.output, input.depth());
}

FilterSpec preset(const std::string& name, Border border, OutputMapping output) {
    FilterSpec s;
    EXPECT_TRUE(makePreset(name, s)) << name;
    s.border = border;
    s.output = output;
    return s;
}

std::vector<Border> allBorders(Depth depth) {
    return {{BorderMode::Replicate, 0.0f},
            {BorderMode::Reflect101, 0.0f},
            {BorderMode::Constant, static_cast<float>(0.6 * test::maxInputOf(depth))},
            {BorderMode::Wrap, 0.0f}};
}

class CpuModeVsOpenCv : public ::testing::TestWithParam<std::string> {
protected:
    std::unique_ptr<Backend> backend_ = cpu::makeCpuBackendWithOpenCV();

    void check(const FilterSpec& spec, const Image& input, const std::string& what) {
        SCOPED_TRACE(what + " with " + spec.name + ", border " + borderModeName(spec.border.mode) + ", " +
                     std::to_string(input.width()) + "x" + std::to_string(input.height()) + "x" +
                     std::to_string(input.channels()) + " " + depthName(input.depth()) +
                     (spec.output.floatOutput ? " -> f32" : ""));
        const RunResult r = backend_->run(spec, input.cview(), GetParam());
        ASSERT_TRUE(r.ok()) << r.error;
        const Image expected = test::imageOf(expectedByOpenCv(spec, input));
        const double scale = test::responseScale(spec, test::maxInputOf(input.depth()));
        EXPECT_TRUE(test::imagesMatch(r.output, expected, test::toleranceFor(expected.depth(), scale)));
    }

    void checkAllKernels(const Image& input, const std::string& what, std::mt19937& rng) {
        const OutputMapping same{}, asFloat{1.0f, 0.0f, false, true}, edges{0.5f, 0.0f, true, false},
            signedView{0.5f, static_cast<float>(test::maxInputOf(input.depth()) / 2), false, false};
        for (const Border& b : allBorders(input.depth())) {
            check(preset("gaussian:7:0", b, same), input, what);
            check(preset("sobel-mag", b, edges), input, what);
            check(preset("sobel-x:5", b, asFloat), input, what);
            check(preset("laplacian-8", b, signedView), input, what);
            FilterSpec random;
            random.name = "random 5x3";
            random.kernels = {test::randomKernel(5, 3, rng)};
            random.border = b;
            random.output = asFloat;
            check(random, input, what);
        }
    }
};

TEST_P(CpuModeVsOpenCv, RealPhotographsInEveryDepthAndChannelCount) {
    std::mt19937 rng = test::testRng();
    const Image moon = test::photographUnderSanitizer(test::loadTestImage("moon.png"));
    const Image fruits = test::photographUnderSanitizer(test::loadTestImage("fruits.jpg"));
    cv::Mat bgra;
    cv::cvtColor(test::matOf(fruits), bgra, cv::COLOR_BGR2BGRA);
    checkAllKernels(moon, "moon.png", rng);
    checkAllKernels(fruits, "fruits.jpg", rng);
    checkAllKernels(test::imageOf(bgra), "fruits.jpg as BGRA", rng);
    checkAllKernels(test::convertedTo(fruits, Depth::U16), "fruits.jpg as u16", rng);
    checkAllKernels(test::convertedTo(moon, Depth::F32), "moon.png as f32", rng);
}

TEST_P(CpuModeVsOpenCv, RandomImagesOfOddSizes) {
    std::mt19937 rng = test::testRng();
    const int sizes[][2] = {{1, 1}, {1, 19}, {19, 1}, {7, 3}};
    for (const auto& s : sizes)
        for (int channels : {1, 3, 4})
            for (Depth depth : {Depth::U8, Depth::U16, Depth::F32})
                checkAllKernels(test::randomImage(s[0], s[1], channels, depth, rng), "random", rng);
}

TEST_P(CpuModeVsOpenCv, RandomLargeImage) {
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(1023, 769, 3, rng() % 2 ? Depth::U8 : Depth::F32, rng);
    const std::vector<Border> borders = allBorders(input.depth());
    const Border& b = borders[rng() % borders.size()];
    check(preset("sobel-mag:5", b, {0.25f, 0.0f, false, false}), input, "random 1023x769");
    check(preset("gaussian:9:2", b, {}), input, "random 1023x769");
}

TEST_P(CpuModeVsOpenCv, KernelLargerThanTheImage) {
    std::mt19937 rng = test::testRng();
    for (const auto& s : {std::pair{1, 1}, std::pair{3, 2}, std::pair{7, 3}})
        for (const Border& b : allBorders(Depth::F32)) {
            FilterSpec big;
            big.name = "random 21x15";
            big.kernels = {test::randomKernel(21, 15, rng)};
            big.border = b;
            big.output = {1.0f, 0.0f, false, true};
            check(big, test::randomImage(s.first, s.second, 3, Depth::F32, rng), "tiny image");
            check(preset("gaussian:31:6", b, {}), test::randomImage(s.first, s.second, 1, Depth::U8, rng), "tiny image");
        }
}

INSTANTIATE_TEST_SUITE_P(Modes, CpuModeVsOpenCv,
                         ::testing::Values("reference", "parallel", std::string(cpu::kOpenCvExactMode)));

TEST(CpuBackendWithOpenCv, AddsBothOpenCvModesAndKeepsTheRoles) {
    std::vector<std::string> ids;
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackendWithOpenCV();
    for (const ModeInfo& m : backend->modes()) {
        ids.push_back(m.id);
        EXPECT_TRUE(m.available) << m.id;
        EXPECT_EQ(m.isReference, m.id == "reference") << m.id;
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"reference", "parallel", cpu::kOpenCvExactMode, cpu::kOpenCvNativeMode}));
    EXPECT_EQ(backend->defaultMode(), "parallel");
}

}  // namespace
}  // namespace fs
