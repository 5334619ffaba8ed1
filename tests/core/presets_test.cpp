// Preset parsing and the textbook weights; the numeric match with OpenCV's
// own functions is in presets_opencv_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "fs/presets.hpp"

namespace fs {
namespace {

TEST(Presets, EveryListedNameBuildsAValidSpecWithReflect101) {
    const char* const names[] = {"identity",    "box",     "box:7",       "gaussian",   "gaussian:5:1.2", "sobel-x",
                                 "sobel-y:5",   "sobel-x:7", "sobel-mag", "sobel-mag:7", "scharr-x",      "scharr-y",
                                 "prewitt-x",   "prewitt-y", "laplacian-4", "laplacian-8", "log:9:1.4",     "log",
                                 "sharpen",     "emboss",  "unsharp:5:1.0:1.5", "unsharp"};
    for (const char* name : names) {
        FilterSpec spec;
        std::string why;
        ASSERT_TRUE(makePreset(name, spec, &why)) << name << ": " << why;
        EXPECT_EQ(validateSpec(spec), "") << name;
        EXPECT_EQ(spec.border.mode, BorderMode::Reflect101) << name;
        EXPECT_EQ(spec.output, OutputMapping{}) << name;
    }
}

TEST(Presets, ListNamesAllParse) {
    for (const PresetInfo& p : listPresets()) {
        // "box:N" style entries document parameters; the bare name must work.
        const std::string bare = p.name.substr(0, p.name.find_first_of(":["));
        FilterSpec spec;
        EXPECT_TRUE(makePreset(bare, spec)) << p.name;
        EXPECT_FALSE(p.summary.empty()) << p.name;
    }
}

TEST(Presets, SobelMagnitudeHasTwoKernels) {
    FilterSpec spec;
    ASSERT_TRUE(makePreset("sobel-mag:5", spec));
    EXPECT_EQ(spec.combine, Combine::Magnitude);
    ASSERT_EQ(spec.kernels.size(), 2u);
    EXPECT_EQ(spec.kernels[0], sobelKernel(5, true));
    EXPECT_EQ(spec.kernels[1], sobelKernel(5, false));
}

TEST(Presets, TextbookWeights) {
    EXPECT_EQ(sobelKernel(3, true), Kernel(3, 3, {-1, 0, 1, -2, 0, 2, -1, 0, 1}));
    EXPECT_EQ(sobelKernel(3, false), Kernel(3, 3, {-1, -2, -1, 0, 0, 0, 1, 2, 1}));
    EXPECT_EQ(scharrKernel(true), Kernel(3, 3, {-3, 0, 3, -10, 0, 10, -3, 0, 3}));
    EXPECT_EQ(prewittKernel(false), Kernel(3, 3, {-1, -1, -1, 0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(laplacian4Kernel(), Kernel(3, 3, {0, 1, 0, 1, -4, 1, 0, 1, 0}));
    EXPECT_EQ(identityKernel(), Kernel(1, 1, {1}));
}

TEST(Presets, SumsThatDefineThem) {
    EXPECT_NEAR(boxKernel(7).sum(), 1.0, 1e-6);
    EXPECT_NEAR(gaussianKernel(9, 2.0).sum(), 1.0, 1e-5);
    EXPECT_NEAR(gaussianKernel(5, 0.0).sum(), 1.0, 1e-6);
    EXPECT_NEAR(logKernel(9, 1.4).sum(), 0.0, 1e-5);
    EXPECT_NEAR(unsharpKernel(5, 1.0, 1.5).sum(), 1.0, 1e-5);
    EXPECT_NEAR(sharpenKernel().sum(), 1.0, 0.0);
    EXPECT_NEAR(sobelKernel(7, true).sum(), 0.0, 0.0);
}

TEST(Presets, GaussianSigmaFromSizeIsOpenCVsFormula) {
    EXPECT_NEAR(gaussianSigmaFromSize(9), 0.3 * (4 - 1) + 0.8, 1e-12);
    // cv::getGaussianKernel(3, 0) is the fixed binomial table.
    EXPECT_EQ(gaussianVector(3, 0.0), (std::vector<float>{0.25f, 0.5f, 0.25f}));
}

TEST(Presets, BadNamesAndParametersSayWhy) {
    struct Case {
        const char* text;
        const char* mentions;
    };
    const Case cases[] = {{"", "empty"},
                          {"blur", "unknown preset"},
                          {"box:4", "odd"},
                          {"box:0", "odd"},
                          {"box:65", "odd"},
                          {"box:x", "whole number"},
                          {"box:3.5", "whole number"},
                          {"gaussian:5:-1", "sigma"},
                          {"gaussian:5:abc", "not a number"},
                          {"sobel-x:9", "3, 5 or 7"},
                          {"log:9:0", "sigma"},
                          {"sharpen:3", "too many"},
                          {"box:3:3", "too many"}};
    for (const Case& c : cases) {
        FilterSpec spec;
        spec.name = "untouched";
        std::string why;
        EXPECT_FALSE(makePreset(c.text, spec, &why)) << c.text;
        EXPECT_NE(why.find(c.mentions), std::string::npos) << c.text << ": '" << why << "'";
        EXPECT_EQ(spec.name, "untouched");
    }
}

}  // namespace
}  // namespace fs
