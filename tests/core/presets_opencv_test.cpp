// Every preset, run by the CPU reference, against OpenCV's own function for
// it (cv::Sobel, cv::Scharr, cv::GaussianBlur, cv::blur, cv::Laplacian,
// cv::filter2D with literal weights) on real photographs and random images of
// odd sizes, for every border mode.
#include <gtest/gtest.h>

#include <functional>
#include <opencv2/imgproc.hpp>

#include "cv_test_support.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

using OpenCvFilter = std::function<cv::Mat(const cv::Mat& src, int border)>;

struct PresetCase {
    std::string preset;
    OpenCvFilter opencv;
};
void PrintTo(const PresetCase& c, std::ostream* os) { *os << c.preset; }

cv::Mat sobel(const cv::Mat& s, int b, int dx, int dy, int k) {
    cv::Mat d;
    cv::Sobel(s, d, CV_32F, dx, dy, k, 1.0, 0.0, b);
    return d;
}

cv::Mat literal(const cv::Mat& s, int b, cv::Mat weights) {
    cv::Mat d;
    cv::filter2D(s, d, CV_32F, weights, cv::Point(-1, -1), 0.0, b);
    return d;
}

cv::Mat gaussian(const cv::Mat& s, int b, int k, double sigma) {
    cv::Mat d;
    cv::GaussianBlur(s, d, cv::Size(k, k), sigma, sigma, b);
    return d;
}

std::vector<PresetCase> presetCases() {
    std::vector<PresetCase> cases = {
        {"identity", [](const cv::Mat& s, int) { return s.clone(); }},
        {"box:3", [](const cv::Mat& s, int b) { cv::Mat d; cv::blur(s, d, {3, 3}, {-1, -1}, b); return d; }},
        {"box:7", [](const cv::Mat& s, int b) { cv::Mat d; cv::blur(s, d, {7, 7}, {-1, -1}, b); return d; }},
        {"gaussian:3:0", [](const cv::Mat& s, int b) { return gaussian(s, b, 3, 0.0); }},
        {"gaussian:5:0", [](const cv::Mat& s, int b) { return gaussian(s, b, 5, 0.0); }},
        {"gaussian:9:0", [](const cv::Mat& s, int b) { return gaussian(s, b, 9, 0.0); }},
        {"gaussian:7:1.5", [](const cv::Mat& s, int b) { return gaussian(s, b, 7, 1.5); }},
        {"gaussian:15:3", [](const cv::Mat& s, int b) { return gaussian(s, b, 15, 3.0); }},
        {"scharr-x", [](const cv::Mat& s, int b) { cv::Mat d; cv::Scharr(s, d, CV_32F, 1, 0, 1.0, 0.0, b); return d; }},
        {"scharr-y", [](const cv::Mat& s, int b) { cv::Mat d; cv::Scharr(s, d, CV_32F, 0, 1, 1.0, 0.0, b); return d; }},
        {"laplacian-4", [](const cv::Mat& s, int b) { cv::Mat d; cv::Laplacian(s, d, CV_32F, 1, 1.0, 0.0, b); return d; }},
        {"laplacian-8", [](const cv::Mat& s, int b) { return literal(s, b, (cv::Mat_<float>(3, 3) << 1, 1, 1, 1, -8, 1, 1, 1, 1)); }},
        {"prewitt-x", [](const cv::Mat& s, int b) { return literal(s, b, (cv::Mat_<float>(3, 3) << -1, 0, 1, -1, 0, 1, -1, 0, 1)); }},
        {"prewitt-y", [](const cv::Mat& s, int b) { return literal(s, b, (cv::Mat_<float>(3, 3) << -1, -1, -1, 0, 0, 0, 1, 1, 1)); }},
        {"sharpen", [](const cv::Mat& s, int b) { return literal(s, b, (cv::Mat_<float>(3, 3) << 0, -1, 0, -1, 5, -1, 0, -1, 0)); }},
        {"emboss", [](const cv::Mat& s, int b) { return literal(s, b, (cv::Mat_<float>(3, 3) << -2, -1, 0, -1, 1, 1, 0, 1, 2)); }},
        {"log:9:1.4", [](const cv::Mat& s, int b) {
             const Kernel k = logKernel(9, 1.4);  // no OpenCV LoG; filter2D with the same weights
             return literal(s, b, cv::Mat(9, 9, CV_32F, const_cast<float*>(k.weights.data())).clone());
         }},
        {"unsharp:5:1:1.5", [](const cv::Mat& s, int b) {  // (1 + a) I - a G * I, built from GaussianBlur
             cv::Mat d;
             cv::addWeighted(s, 2.5, gaussian(s, b, 5, 1.0), -1.5, 0.0, d);
             return d;
         }},
    };
    for (int k : {3, 5, 7}) {
        const std::string n = std::to_string(k);
        cases.push_back({"sobel-x:" + n, [k](const cv::Mat& s, int b) { return sobel(s, b, 1, 0, k); }});
        cases.push_back({"sobel-y:" + n, [k](const cv::Mat& s, int b) { return sobel(s, b, 0, 1, k); }});
        cases.push_back({"sobel-mag:" + n, [k](const cv::Mat& s, int b) {
                             cv::Mat d;
                             cv::magnitude(sobel(s, b, 1, 0, k), sobel(s, b, 0, 1, k), d);
                             return d;
                         }});
    }
    return cases;
}

const Border kBorders[] = {{BorderMode::Replicate, 0.0f}, {BorderMode::Reflect101, 0.0f}, {BorderMode::Constant, 0.0f},
                           {BorderMode::Constant, 0.375f}, {BorderMode::Wrap, 0.0f}};

class PresetVsOpenCv : public ::testing::TestWithParam<PresetCase> {
protected:
    // Float output against OpenCV's float result, then the same through the
    // u8/u16 path (abs, saturate) against OpenCV's saturate_cast.
    void check(const Image& input, Border border, const std::string& label, bool alsoInteger = true) {
        const PresetCase& c = GetParam();
        FilterSpec spec;
        ASSERT_TRUE(makePreset(c.preset, spec));
        if (border.mode == BorderMode::Constant) border.value *= static_cast<float>(test::maxInputOf(input.depth()));
        spec.border = border;
        SCOPED_TRACE(label + ", border " + borderModeName(border.mode) + ":" + std::to_string(border.value) + ", " +
                     std::to_string(input.width()) + "x" + std::to_string(input.height()) + "x" +
                     std::to_string(input.channels()) + " " + depthName(input.depth()));
        const cv::Mat expected = test::cvFiltered(test::matOf(input), border, spec.maxRadiusX(), spec.maxRadiusY(), c.opencv);

        spec.output.floatOutput = true;
        const Image actualFloat = cpu::referenceFilter(spec, input.cview());
        const double scale = test::responseScale(spec, test::maxInputOf(input.depth()));
        EXPECT_TRUE(test::imagesMatch(actualFloat, test::imageOf(expected), test::toleranceFor(Depth::F32, scale)));

        if (alsoInteger && input.depth() != Depth::F32) {
            spec.output = {1.0f, 0.0f, true, false};
            const Image actual = cpu::referenceFilter(spec, input.cview());
            const Image want = test::imageOf(test::cvMapped(expected, spec.output, input.depth()));
            EXPECT_TRUE(test::imagesMatch(actual, want, test::toleranceFor(input.depth(), scale)));
        }
    }
};

// The reference is slow on photographs, so every border on the gray photo and
// one seed-chosen border for each other variant; the random tests below cover
// every border, depth and channel count.
TEST_P(PresetVsOpenCv, RealPhotographs) {
    std::mt19937 rng = test::testRng();
    auto anyBorder = [&] { return kBorders[rng() % std::size(kBorders)]; };
    const Image moon = test::photographUnderSanitizer(test::loadTestImage("moon.png"));     // 512x512 gray
    const Image fruits = test::photographUnderSanitizer(test::loadTestImage("fruits.jpg"));  // 512x480 BGR
    for (const Border& b : kBorders) check(moon, b, "moon.png", b.mode == BorderMode::Reflect101);
    check(fruits, anyBorder(), "fruits.jpg");
    check(test::convertedTo(fruits, Depth::F32), anyBorder(), "fruits.jpg as f32");
    check(test::convertedTo(moon, Depth::U16), anyBorder(), "moon.png as u16");
}

TEST_P(PresetVsOpenCv, RandomOddSizesIncludingKernelsLargerThanTheImage) {
    std::mt19937 rng = test::testRng();
    const int sizes[][2] = {{1, 1}, {1, 17}, {17, 1}, {7, 3}, {2, 2}};
    for (const auto& s : sizes)
        for (int channels : {1, 3, 4})
            for (Depth depth : {Depth::U8, Depth::F32})
                for (const Border& b : kBorders) check(test::randomImage(s[0], s[1], channels, depth, rng), b, "random");
}

TEST_P(PresetVsOpenCv, RandomLargeOddImage) {
    std::mt19937 rng = test::testRng();
    const Border& b = kBorders[rng() % std::size(kBorders)];
    check(test::randomImage(1023, 769, 1, rng() % 2 ? Depth::U8 : Depth::F32, rng), b, "random 1023x769");
}

INSTANTIATE_TEST_SUITE_P(AllPresets, PresetVsOpenCv, ::testing::ValuesIn(presetCases()),
                         [](const ::testing::TestParamInfo<PresetCase>& param) {
                             std::string name = param.param.preset;
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

TEST(BorderIndexVsOpenCv, MatchesBorderInterpolateAtAnyDistance) {
    for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap})
        for (int n = 1; n < 10; ++n)
            for (int p = -200; p < 200; ++p)
                ASSERT_EQ(borderIndex(p, n, m), cv::borderInterpolate(p, n, test::cvBorderOf(m)))
                    << borderModeName(m) << " p=" << p << " n=" << n;
}

TEST(PresetVectorsVsOpenCv, GaussianAndSobelVectorsMatchOpenCvs) {
    for (int size : {1, 3, 5, 7, 9, 15, 31, 63})
        for (double sigma : {0.0, 0.8, 1.5, 4.0}) {
            const cv::Mat want = cv::getGaussianKernel(size, sigma, CV_32F);
            const std::vector<float> got = gaussianVector(size, sigma);
            for (int i = 0; i < size; ++i) EXPECT_NEAR(got[i], want.at<float>(i), 1e-7) << size << " " << sigma;
        }
    for (int size : {3, 5, 7}) {
        cv::Mat d, s;
        cv::getDerivKernels(d, s, 1, 0, size, false, CV_32F);
        std::vector<float> derivative, smooth;
        sobelVectors(size, 1, derivative, smooth);
        for (int i = 0; i < size; ++i) {
            EXPECT_EQ(derivative[i], d.at<float>(i)) << size;
            EXPECT_EQ(smooth[i], s.at<float>(i)) << size;
        }
    }
}

}  // namespace
}  // namespace fs
