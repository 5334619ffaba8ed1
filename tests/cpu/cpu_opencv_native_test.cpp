// Mode opencv-native: (1) it is really OpenCV's own call, equal sample for
// sample to cv::GaussianBlur, cv::blur, cv::Sobel, cv::Laplacian, ... called
// directly as a user would; (2) its largest difference from the reference is
// OpenCV's fixed-point rounding: at most 1 level on 8- and 16-bit images, and
// for Gaussians larger than 9x9, whose weights OpenCV rounds to fixed point,
// up to 3 (measured on tiny images where the border repeats a few pixels);
// on random images of odd sizes, every border, u8 with 1, 3 and 4 channels,
// u16 and f32, and real photographs.
#include <gtest/gtest.h>

#include <functional>
#include <opencv2/imgproc.hpp>

#include "cv_test_support.hpp"
#include "fs/cpu/opencv_backend.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

const std::string kNative = cpu::kOpenCvNativeMode;

std::vector<Border> everyBorder(Depth depth) {
    // A constant border must be a sample of the image's type (the mode pads in it).
    const float constant = depth == Depth::F32 ? 0.6f : depth == Depth::U8 ? 153.0f : 39321.0f;
    return {{BorderMode::Replicate, 0.0f},
            {BorderMode::Reflect101, 0.0f},
            {BorderMode::Constant, 0.0f},
            {BorderMode::Constant, constant},
            {BorderMode::Wrap, 0.0f}};
}

std::string describe(const FilterSpec& spec, const Image& input) {
    return spec.name + ", border " + borderModeName(spec.border.mode) + ":" + std::to_string(spec.border.value) +
           ", scale " + std::to_string(spec.output.scale) + " offset " + std::to_string(spec.output.offset) +
           (spec.output.absolute ? " abs" : "") + (spec.output.floatOutput ? " -> f32" : "") + ", " +
           std::to_string(input.width()) + "x" + std::to_string(input.height()) + "x" + std::to_string(input.channels()) +
           " " + depthName(input.depth());
}

FilterSpec preset(const std::string& name, Border border, OutputMapping output = {}) {
    FilterSpec s = test::presetSpec(name);
    s.border = border;
    s.output = output;
    return s;
}

// What a user writes: the call on the image with OpenCV's border, or for wrap
// and non-zero constants, cv::copyMakeBorder in the image's own type, the
// call, and the interior.
cv::Mat direct(const cv::Mat& src, const Border& border, int r, const std::function<void(const cv::Mat&, cv::Mat&, int)>& call) {
    cv::Mat out;
    const bool padded = border.mode == BorderMode::Wrap || (border.mode == BorderMode::Constant && border.value != 0.0f) ||
                        src.cols < 2 * r + 1 || src.rows < 2 * r + 1;
    if (!padded) {
        call(src, out, test::cvBorderOf(border.mode));
        return out;
    }
    cv::Mat p;
    cv::copyMakeBorder(src, p, r, r, r, r, test::cvBorderOf(border.mode), cv::Scalar::all(border.value));
    call(p, out, cv::BORDER_REPLICATE);
    return out(cv::Rect(r, r, src.cols, src.rows)).clone();
}

class OpenCvNative : public ::testing::Test {
protected:
    std::unique_ptr<Backend> backend_ = cpu::makeCpuBackendWithOpenCV();

    Image run(const FilterSpec& spec, const Image& input, const std::string& mode) {
        const RunResult r = backend_->run(spec, input.cview(), mode);
        EXPECT_TRUE(r.ok()) << mode << ": " << r.error;
        return r.ok() ? Image::copyOf(r.output.cview()) : Image();
    }

    // Within OpenCV's rounding of the reference: `levels` for integer outputs
    // (1 is the tolerance every mode gets), float precision for f32.
    void expectNearReference(const FilterSpec& spec, const Image& input, int levels = 1) {
        SCOPED_TRACE(describe(spec, input));
        const Image native = run(spec, input, kNative);
        const Image reference = run(spec, input, "reference");
        ASSERT_FALSE(native.empty() || reference.empty());
        const double scale = test::responseScale(spec, test::maxInputOf(input.depth()));
        test::Tolerance tolerance = test::toleranceFor(reference.depth(), scale);
        if (reference.depth() != Depth::F32) tolerance.absolute += levels - 1;
        EXPECT_TRUE(test::imagesMatch(native, reference, tolerance));
    }

    void expectSameAs(const FilterSpec& spec, const Image& input, const cv::Mat& expected) {
        SCOPED_TRACE("native vs the direct OpenCV call: " + describe(spec, input));
        const Image native = run(spec, input, kNative);
        ASSERT_FALSE(native.empty());
        EXPECT_TRUE(test::imagesMatch(native, test::imageOf(expected), test::exact()));
    }

    void checkAgainstReference(const Image& input, std::mt19937& rng) {
        const double top = test::maxInputOf(input.depth());
        const OutputMapping same{}, asFloat{1.0f, 0.0f, false, true}, edges{0.25f, 0.0f, true, false},
            signedView{0.5f, static_cast<float>(top / 2), false, false}, halfAbs{0.5f, static_cast<float>(-top / 8), true, false};
        for (const Border& b : everyBorder(input.depth())) {
            for (const char* name : {"gaussian:3:0", "gaussian:5:1.2", "gaussian:7:0", "gaussian:9:2", "box:3", "box:5",
                                     "sobel-x", "sobel-y:5", "sobel-x:7", "laplacian-4", "laplacian-8",
                                     "log:5:1.0"})
                expectNearReference(preset(name, b, same), input);
            expectNearReference(preset("gaussian:11:2.5", b, same), input, 3);
            // 31x31 on the single-thread reference is slow: the small random images only.
            if (input.width() * input.height() < 10000) {
                expectNearReference(preset("box:15", b, same), input);
                expectNearReference(preset("gaussian:15:0", b, same), input, 3);
                expectNearReference(preset("gaussian:31:0", b, same), input, 3);
            }
            expectNearReference(preset("gaussian:5:1.2", b, signedView), input);
            expectNearReference(preset("box:3", b, halfAbs), input);
            expectNearReference(preset("gaussian:9:2", b, asFloat), input);
            expectNearReference(preset("box:5", b, asFloat), input);
            expectNearReference(preset("laplacian-8", b, {-0.5f, 3.0f, true, true}), input);
            expectNearReference(preset("sobel-x", b, {1.0f, 0.0f, true, false}), input);
            expectNearReference(preset("sobel-y:5", b, signedView), input);
            expectNearReference(preset("sobel-mag", b, edges), input);
            expectNearReference(preset("sobel-mag:5", b, asFloat), input);
            expectNearReference(preset("laplacian-4", b, {2.0f, -10.0f, true, false}), input);
            expectNearReference(preset("sobel-x:5", b, {1.0f, 0.0f, true, true}), input);
            FilterSpec dense;
            dense.name = "random 5x3";
            dense.kernels = {test::randomKernel(5, 3, rng)};
            dense.border = b;
            dense.output = asFloat;
            expectNearReference(dense, input);
            FilterSpec separable = dense;
            separable.name = "random rank-1 3x5";
            std::uniform_real_distribution<float> d(-1.0f, 1.0f);
            separable.kernels = {Kernel::outer({d(rng), d(rng), d(rng), d(rng), d(rng)}, {d(rng), d(rng), d(rng)})};
            expectNearReference(separable, input);
        }
    }
};

TEST_F(OpenCvNative, WithinOneLevelOfTheReferenceOnRandomOddSizes) {
    std::mt19937 rng = test::testRng();
    const int sizes[][2] = {{37, 23}, {1, 19}, {19, 1}, {7, 3}, {2, 2}};
    for (const auto& s : sizes)
        for (int channels : {1, 3, 4})
            for (Depth depth : {Depth::U8, Depth::U16, Depth::F32})
                checkAgainstReference(test::randomImage(s[0], s[1], channels, depth, rng), rng);
}

TEST_F(OpenCvNative, WithinOneLevelOfTheReferenceOnPhotographs) {
    std::mt19937 rng = test::testRng();
    const Image fruits = test::photographUnderSanitizer(test::loadTestImage("fruits.jpg"));
    cv::Mat bgra;
    cv::cvtColor(test::matOf(fruits), bgra, cv::COLOR_BGR2BGRA);
    checkAgainstReference(test::photographUnderSanitizer(test::loadTestImage("moon.png")), rng);
    checkAgainstReference(fruits, rng);
    checkAgainstReference(test::imageOf(bgra), rng);
    checkAgainstReference(test::convertedTo(fruits, Depth::F32), rng);
}

// Equal to OpenCV's own calls, for every border, u8 with 1, 3 and 4 channels and f32.
TEST_F(OpenCvNative, IsOpenCvsOwnCall) {
    std::mt19937 rng = test::testRng();
    const Image fruits = test::loadTestImage("fruits.jpg");
    cv::Mat bgra;
    cv::cvtColor(test::matOf(fruits), bgra, cv::COLOR_BGR2BGRA);
    std::vector<Image> inputs;
    inputs.push_back(test::loadTestImage("moon.png"));
    inputs.push_back(Image::copyOf(fruits.cview()));
    inputs.push_back(test::imageOf(bgra));
    inputs.push_back(test::convertedTo(fruits, Depth::F32));
    for (int channels : {1, 3, 4}) inputs.push_back(test::randomImage(41, 29, channels, Depth::U8, rng));
    inputs.push_back(test::randomImage(41, 29, 1, Depth::F32, rng));
    inputs.push_back(test::randomImage(3, 2, 3, Depth::U8, rng));  // smaller than the kernels: padded
    for (const Image& input : inputs) {
        const cv::Mat src = test::matOf(input);
        for (const Border& b : everyBorder(input.depth())) {
            expectSameAs(preset("gaussian:5:1.2", b), input, direct(src, b, 2, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::GaussianBlur(s, d, cv::Size(5, 5), 1.2, 1.2, bt);
                         }));
            expectSameAs(preset("gaussian:7:0", b), input, direct(src, b, 3, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::GaussianBlur(s, d, cv::Size(7, 7), 0, 0, bt);
                         }));
            expectSameAs(preset("gaussian:15:0", b), input, direct(src, b, 7, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::GaussianBlur(s, d, cv::Size(15, 15), 0, 0, bt);
                         }));
            expectSameAs(preset("box:5", b), input, direct(src, b, 2, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::blur(s, d, cv::Size(5, 5), cv::Point(-1, -1), bt);
                         }));
            expectSameAs(preset("sobel-x", b), input, direct(src, b, 1, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::Sobel(s, d, -1, 1, 0, 3, 1.0, 0.0, bt);
                         }));
            expectSameAs(preset("sobel-y:5", b, {0.5f, 20.0f, false, false}), input,
                         direct(src, b, 2, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::Sobel(s, d, -1, 0, 1, 5, 0.5, 20.0, bt);
                         }));
            expectSameAs(preset("laplacian-4", b), input, direct(src, b, 1, [](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::Laplacian(s, d, -1, 1, 1.0, 0.0, bt);
                         }));
            if (input.depth() == Depth::U8) {
                // The tutorial's edge image: 16-bit signed gradient, then convertScaleAbs.
                expectSameAs(preset("sobel-x", b, {0.5f, 0.0f, true, false}), input,
                             direct(src, b, 1, [](const cv::Mat& s, cv::Mat& d, int bt) {
                                 cv::Mat g;
                                 cv::Sobel(s, g, CV_16S, 1, 0, 3, 1.0, 0.0, bt);
                                 cv::convertScaleAbs(g, d, 0.5);
                             }));
            }
            expectSameAs(preset("sobel-mag", b), input, direct(src, b, 1, [&](const cv::Mat& s, cv::Mat& d, int bt) {
                             cv::Mat gx, gy, mag;
                             cv::Sobel(s, gx, CV_32F, 1, 0, 3, 1.0, 0.0, bt);
                             cv::Sobel(s, gy, CV_32F, 0, 1, 3, 1.0, 0.0, bt);
                             cv::magnitude(gx, gy, mag);
                             mag.convertTo(d, s.depth());
                         }));
        }
    }
}

// The weights pick the call, not the preset's name: a kernel from a file that
// happens to be a Gaussian runs cv::GaussianBlur with its sigma.
TEST_F(OpenCvNative, RecognisesKernelsByTheirWeights) {
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(64, 48, 3, Depth::U8, rng);
    const cv::Mat src = test::matOf(input);
    FilterSpec spec;
    spec.name = "from a file";
    for (double sigma : {0.8, 1.2, 2.5, 3.7, 2.718281828}) {
        spec.kernels = {gaussianKernel(11, sigma)};
        cv::Mat want;
        cv::GaussianBlur(src, want, cv::Size(11, 11), sigma, sigma, cv::BORDER_REFLECT_101);
        expectSameAs(spec, input, want);
    }
    spec.kernels = {laplacian8Kernel()};  // not a cv::Laplacian kernel: filter2D
    cv::Mat want;
    cv::filter2D(src, want, -1, cv::Mat(3, 3, CV_32F, spec.kernels[0].weights.data()), cv::Point(-1, -1), 0.0,
                 cv::BORDER_REFLECT_101);
    expectSameAs(spec, input, want);
}

// OpenCV's fixed-point u8 Gaussian rounds differently from the float
// reference somewhere on a photograph: this mode is not the exact one.
TEST_F(OpenCvNative, DiffersFromTheExactModeByOpenCvsRounding) {
    const Image fruits = test::loadTestImage("fruits.jpg");
    const FilterSpec spec = preset("gaussian:5:1.2", {});
    const Image native = run(spec, fruits, kNative), exact = run(spec, fruits, cpu::kOpenCvExactMode);
    ASSERT_FALSE(native.empty());
    ASSERT_FALSE(exact.empty());
    EXPECT_TRUE(test::imagesMatch(native, exact, {1.0, 0.0}));
    EXPECT_FALSE(test::imagesMatch(native, exact, test::exact())) << "expected OpenCV's fixed-point rounding to show";
}

TEST_F(OpenCvNative, RefusesAConstantBorderOutsideTheImageType) {
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(9, 9, 1, Depth::U8, rng);
    for (float value : {12.5f, -1.0f, 256.0f}) {
        const RunResult r = backend_->run(preset("box:3", {BorderMode::Constant, value}), input.cview(), kNative);
        EXPECT_FALSE(r.ok()) << value;
        EXPECT_NE(r.error.find("constant border value"), std::string::npos) << r.error;
        EXPECT_NE(r.error.find(cpu::kOpenCvExactMode), std::string::npos) << r.error;
    }
    EXPECT_TRUE(backend_->run(preset("box:3", {BorderMode::Constant, 12.5f}), input.cview(), cpu::kOpenCvExactMode).ok());
}

}  // namespace
}  // namespace fs
