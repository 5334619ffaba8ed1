// Mode "parallel" against the reference on real photographs (tests/data):
// bit-exact for the dyadic presets and 2-D kernels on u8, within tolerance
// (1 level on u8) for the rest; gray, BGR and BGRA, with every border.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "cv_test_support.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

void check(const Image& photo, const std::string& preset, bool exact) {
    FilterSpec spec = test::presetSpec(preset);
    for (BorderMode mode : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap}) {
        spec.border = {mode, 64.0f};
        SCOPED_TRACE(preset + ", border " + borderModeName(mode) + ", " + std::to_string(photo.channels()) + " channels");
        const Image expected = cpu::referenceFilter(spec, photo.cview());
        const RunResult r = cpu::makeCpuBackend()->run(spec, photo.cview(), "parallel");
        ASSERT_TRUE(r.ok()) << r.error;
        const test::Tolerance tol = exact ? test::exact() : test::toleranceFor(expected.depth(), test::responseScale(spec, 255.0));
        EXPECT_TRUE(test::imagesMatch(r.output, expected, tol));
    }
}

TEST(ParallelOnPhotographs, MoonAndFruitsInGrayBgrAndBgra) {
    const Image moon = test::photographUnderSanitizer(test::loadTestImage("moon.png"));
    const Image fruits = test::photographUnderSanitizer(test::loadTestImage("fruits.jpg"));
    cv::Mat bgra;
    cv::cvtColor(test::matOf(fruits), bgra, cv::COLOR_BGR2BGRA);
    for (const Image* photo : {&moon, &fruits}) {
        for (const char* preset : {"gaussian:3", "gaussian:5", "gaussian:7", "sobel-x", "sobel-y:5", "sobel-mag:3",
                                   "laplacian-4", "laplacian-8", "scharr-x", "prewitt-y"})
            check(*photo, preset, true);
        for (const char* preset : {"box:3", "box:15", "gaussian:15:3"}) check(*photo, preset, false);
        // Explicit sigmas: the fixed-point path on u8, within 1 level.
        for (const char* preset : {"gaussian:5:1.3", "gaussian:9:2.2", "gaussian:13:3.1"}) check(*photo, preset, false);
    }
    const Image fruitsBgra = test::imageOf(bgra);
    for (const char* preset : {"gaussian:3", "sobel-x", "laplacian-4"}) check(fruitsBgra, preset, true);
    for (const char* preset : {"box:7", "gaussian:7:1.7", "gaussian:15:3.6"}) check(fruitsBgra, preset, false);
}

}  // namespace
}  // namespace fs
