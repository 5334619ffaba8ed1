// Backend "opencl" against fs::cpu::referenceFilter on random images of odd
// sizes and real photographs, every border mode, u8/u16/f32, 1/3/4 channels,
// magnitude and the output mappings. Skips with the backend's own reason when
// OpenCV finds no OpenCL device.
//
// Each distinct (kernel weights, depth, channels, border) is a new OpenCL
// program that the driver compiles at first use (about a second each on
// PoCL), so the cases are chosen to cover every axis without the full cross
// product of them all.
#include <gtest/gtest.h>

#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cv_test_support.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/ocl/opencl_backend.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

// OpenCV only uses GPU OpenCL devices by default; "::" means "a GPU, else a
// CPU device", so CI can run these tests on PoCL. Set before any OpenCL call
// (OpenCV reads it once, when it first creates its context); a value set by
// the caller wins.
const bool kCpuDevicesAllowed = [] { return ::setenv("OPENCV_OPENCL_DEVICE", "::", 0) == 0; }();

Backend& openCl() {
    static const std::unique_ptr<Backend> backend = [] {
        std::unique_ptr<Backend> b = opencl::makeOpenClBackend();
        if (b->available())
            std::cout << "[ device   ] " << b->displayName() << " (OpenCV default device: "
                      << cv::ocl::Device::getDefault().name() << ")\n";
        else std::cout << "[ device   ] none: " << b->unavailableReason() << "\n";
        return b;
    }();
    return *backend;
}

// "OpenCL on the CPU": its own context on the first CPU device, whatever OPENCV_OPENCL_DEVICE says.
Backend& openClCpu() {
    static const std::unique_ptr<Backend> backend = [] {
        std::unique_ptr<Backend> b = opencl::makeOpenClCpuBackend();
        std::cout << "[ device   ] " << (b->available() ? b->displayName() : "none: " + b->unavailableReason()) << "\n";
        return b;
    }();
    return *backend;
}

#define SKIP_WITHOUT_OPENCL_CPU()                                                                                   \
    do {                                                                                                            \
        if (!openClCpu().available()) GTEST_SKIP() << "opencl-cpu backend unavailable: " << openClCpu().unavailableReason(); \
    } while (0)

#define SKIP_WITHOUT_OPENCL()                                                                             \
    do {                                                                                                  \
        if (!openCl().available()) GTEST_SKIP() << "opencl backend unavailable: " << openCl().unavailableReason(); \
    } while (0)

FilterSpec preset(const std::string& name, Border border, OutputMapping output) {
    FilterSpec s;
    EXPECT_TRUE(makePreset(name, s)) << name;
    s.border = border;
    s.output = output;
    return s;
}

FilterSpec dense(Kernel k, Border border, OutputMapping output) {
    FilterSpec s;
    s.name = "random " + std::to_string(k.width) + "x" + std::to_string(k.height);
    s.kernels = {std::move(k)};
    s.border = border;
    s.output = output;
    return s;
}

Border borderFor(BorderMode mode, Depth depth) {
    // A constant other than 0, so a border that pads with zeros cannot pass.
    return {mode, mode == BorderMode::Constant ? static_cast<float>(0.6 * test::maxInputOf(depth)) : 0.0f};
}

const BorderMode kAllBorders[] = {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant,
                                  BorderMode::Wrap};
const OutputMapping kSame{};
const OutputMapping kAsFloat{1.0f, 0.0f, false, true};
const OutputMapping kEdges{0.5f, 0.0f, true, false};

std::string describe(const FilterSpec& spec, const Image& input, const std::string& mode) {
    return "opencl/" + mode + " with " + spec.name + ", border " + borderModeName(spec.border.mode) + ", " +
           std::to_string(input.width()) + "x" + std::to_string(input.height()) + "x" +
           std::to_string(input.channels()) + " " + depthName(input.depth()) +
           (spec.output.floatOutput ? " -> f32" : "");
}

// Runs every mode on `input` and compares with the CPU reference.
void checkAgainstReference(const FilterSpec& spec, const Image& input, Backend& backend = openCl()) {
    const Image expected = cpu::referenceFilter(spec, input.cview());
    const double scale = test::responseScale(spec, test::maxInputOf(input.depth()));
    for (const char* mode : {"filter2d", "auto"}) {
        SCOPED_TRACE(backend.id() + ": " + describe(spec, input, mode));
        const RunResult r = backend.run(spec, input.cview(), mode);
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_TRUE(r.timing.uploadMs && r.timing.kernelMs && r.timing.downloadMs && r.timing.totalMs);
        EXPECT_TRUE(test::imagesMatch(r.output, expected, test::toleranceFor(expected.depth(), scale)));
    }
}

TEST(OpenClBackend, ListsItsModes) {
    Backend& b = openCl();
    EXPECT_EQ(b.id(), "opencl");
    std::vector<std::string> ids;
    for (const ModeInfo& m : b.modes()) {
        ids.push_back(m.id);
        EXPECT_FALSE(m.description.empty());
        EXPECT_EQ(m.available, b.available());
        EXPECT_EQ(m.unavailableReason, b.unavailableReason());
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"filter2d", "auto"}));
}

TEST(OpenClBackend, RefusesWhatItCannotRun) {
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(5, 4, 1, Depth::U8, rng);
    const FilterSpec spec = preset("box:3", {}, kSame);
    const RunResult unknown = openCl().run(spec, input.cview(), "shared");
    EXPECT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error.find("no mode 'shared'"), std::string::npos) << unknown.error;
    if (!openCl().available()) {
        const RunResult r = openCl().run(spec, input.cview(), "auto");
        EXPECT_NE(r.error.find(openCl().unavailableReason()), std::string::npos) << r.error;
        GTEST_SKIP() << "opencl backend unavailable: " << openCl().unavailableReason();
    }
    FilterSpec even = spec;
    even.kernels[0] = Kernel(2, 3, std::vector<float>(6, 1.0f));
    const RunResult bad = openCl().run(even, input.cview(), "auto");
    EXPECT_FALSE(bad.ok());
    EXPECT_TRUE(bad.output.empty());
}

// Each depth with every channel count, each with a different border, on odd
// sizes; then every border on one-pixel images. Cases alternate between a
// magnitude of two rank-1 kernels (sepFilter2D in "auto") and a dense random
// kernel (filter2D in both modes). Not the full cross product, as each case
// costs OpenCL compiles; one test per depth so ctest -j spreads them.
void checkRandomImage(Depth depth, int channels, BorderMode mode, int width, int height, bool magnitude,
                      std::mt19937& rng) {
    const Image input = test::randomImage(width, height, channels, depth, rng);
    const Border border = borderFor(mode, depth);
    if (magnitude) checkAgainstReference(preset("sobel-mag", border, kEdges), input);
    else checkAgainstReference(dense(test::randomKernel(5, 3, rng), border, kAsFloat), input);
}

class OpenClRandomImages : public ::testing::TestWithParam<Depth> {};

TEST_P(OpenClRandomImages, EveryChannelCountOddSizes) {
    SKIP_WITHOUT_OPENCL();
    std::mt19937 rng = test::testRng();
    const int depthIndex = static_cast<int>(GetParam());
    const int sizes[][2] = {{37, 23}, {19, 1}, {1, 7}, {7, 3}};
    for (int channelIndex = 0; channelIndex < 3; ++channelIndex) {
        const int caseIndex = 3 * depthIndex + channelIndex;  // 0..8 over the three tests
        const int* size = sizes[(caseIndex / 2) % 4];      // not in step with the border cycle
        checkRandomImage(GetParam(), channelIndex == 0 ? 1 : channelIndex + 2, kAllBorders[caseIndex % 4], size[0],
                         size[1], caseIndex % 2 == 0, rng);
    }
}

INSTANTIATE_TEST_SUITE_P(Depths, OpenClRandomImages, ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                         [](const ::testing::TestParamInfo<Depth>& param) { return depthName(param.param); });

TEST(OpenClBackend, OnePixelImagesEveryBorder) {
    SKIP_WITHOUT_OPENCL();
    std::mt19937 rng = test::testRng();
    bool magnitude = true;
    for (BorderMode mode : kAllBorders) {
        checkRandomImage(Depth::U8, 3, mode, 1, 1, magnitude, rng);
        magnitude = !magnitude;
    }
}

TEST(OpenClBackend, RealPhotographs) {
    SKIP_WITHOUT_OPENCL();
    const Image moon = test::loadTestImage("moon.png");
    const Image fruits = test::loadTestImage("fruits.jpg");
    cv::Mat bgra;
    cv::cvtColor(test::matOf(fruits), bgra, cv::COLOR_BGR2BGRA);
    const Border reflect = borderFor(BorderMode::Reflect101, Depth::U8);
    checkAgainstReference(preset("gaussian:7:0", reflect, kSame), moon);
    checkAgainstReference(preset("sobel-mag", borderFor(BorderMode::Wrap, Depth::U8), kEdges), fruits);
    checkAgainstReference(preset("laplacian-8", borderFor(BorderMode::Constant, Depth::U8), kAsFloat),
                          test::imageOf(bgra));
    checkAgainstReference(preset("sobel-x:5", borderFor(BorderMode::Replicate, Depth::U16), kEdges),
                          test::convertedTo(fruits, Depth::U16));
    checkAgainstReference(preset("gaussian:7:0", reflect, kSame), test::convertedTo(moon, Depth::F32));
}

// Output mappings that go below zero and past the top of the range, so the
// rounding and saturation of u8/u16 are exercised on the device.
TEST(OpenClBackend, OutputMappingsSaturateAndRound) {
    SKIP_WITHOUT_OPENCL();
    std::mt19937 rng = test::testRng();
    for (Depth depth : {Depth::U8, Depth::U16}) {
        const Image input = test::randomImage(41, 29, 3, depth, rng);
        const float half = static_cast<float>(test::maxInputOf(depth) / 2);
        const Border border = borderFor(BorderMode::Reflect101, depth);
        checkAgainstReference(preset("laplacian-8", border, {0.5f, half, false, false}), input);
        checkAgainstReference(preset("laplacian-8", border, {2.0f, -half, true, false}), input);
    }
}

TEST(OpenClBackend, KernelLargerThanTheImage) {
    SKIP_WITHOUT_OPENCL();
    std::mt19937 rng = test::testRng();
    for (BorderMode mode : kAllBorders) {
        const Border border = borderFor(mode, Depth::U8);
        checkAgainstReference(preset("gaussian:31:6", border, kSame), test::randomImage(3, 2, 1, Depth::U8, rng));
    }
}

TEST(OpenClBackend, LargeImageTimingParts) {
    SKIP_WITHOUT_OPENCL();
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(1023, 769, 1, Depth::F32, rng);
    const FilterSpec spec = preset("gaussian:7:0", borderFor(BorderMode::Reflect101, Depth::F32), kSame);
    checkAgainstReference(spec, input);
    const RunResult r = openCl().run(spec, input.cview(), "auto");
    ASSERT_TRUE(r.ok()) << r.error;
    std::cout << "[ timing   ] 1023x769 f32 gaussian:7 opencl/auto: " << r.timing.toString() << "\n";
    EXPECT_GE(*r.timing.totalMs, *r.timing.uploadMs + *r.timing.kernelMs + *r.timing.downloadMs);
}

}  // namespace
}  // namespace fs

namespace fs {
namespace {

TEST(OpenClCpuBackend, ListsItsModesAndSaysWhyItIsThere) {
    Backend& b = openClCpu();
    EXPECT_EQ(b.id(), "opencl-cpu");
    EXPECT_EQ(b.displayName().rfind("OpenCL on the CPU", 0), 0u) << b.displayName();
    std::vector<std::string> ids;
    for (const ModeInfo& m : b.modes()) {
        ids.push_back(m.id);
        EXPECT_FALSE(m.isDefault);  // never chosen over the backend it mirrors
        EXPECT_NE(m.description.find("no restart"), std::string::npos) << m.description;
        EXPECT_EQ(m.available, b.available());
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"filter2d", "auto"}));
}

TEST(OpenClCpuBackend, MatchesTheReference) {
    SKIP_WITHOUT_OPENCL_CPU();
    std::mt19937 rng = test::testRng();
    checkAgainstReference(preset("sobel-mag", borderFor(BorderMode::Wrap, Depth::U8), kEdges),
                          test::randomImage(37, 23, 3, Depth::U8, rng), openClCpu());
    checkAgainstReference(dense(test::randomKernel(5, 3, rng), borderFor(BorderMode::Constant, Depth::F32), kAsFloat),
                          test::randomImage(19, 7, 1, Depth::F32, rng), openClCpu());
    checkAgainstReference(preset("gaussian:7:0", borderFor(BorderMode::Reflect101, Depth::U16), kSame),
                          test::randomImage(23, 29, 4, Depth::U16, rng), openClCpu());
}

// A run binds the CPU context only for itself: a thread that had no OpenCL context has none afterwards (so
// OpenCV's default device serves its next "opencl" run), and one that had a context gets it back.
TEST(OpenClCpuBackend, LeavesEachThreadsContextAsItWas) {
    SKIP_WITHOUT_OPENCL_CPU();
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(9, 9, 1, Depth::U8, rng);
    const FilterSpec spec = preset("box:3", {}, kSame);
    bool emptyBefore = false, emptyAfter = false, ran = false;
    std::thread fresh([&] {
        emptyBefore = cv::ocl::OpenCLExecutionContext::getCurrentRef().empty();
        ran = openClCpu().run(spec, input.cview(), "auto").ok();
        emptyAfter = cv::ocl::OpenCLExecutionContext::getCurrentRef().empty();
    });
    fresh.join();
    EXPECT_TRUE(ran);
    EXPECT_TRUE(emptyBefore);
    EXPECT_TRUE(emptyAfter);
    if (!openCl().available()) GTEST_SKIP() << "no default OpenCL device to bind: " << openCl().unavailableReason();
    const void* defaultContext = cv::ocl::OpenCLExecutionContext::getCurrent().getContext().ptr();
    ASSERT_TRUE(openClCpu().run(spec, input.cview(), "filter2d").ok());
    EXPECT_EQ(cv::ocl::OpenCLExecutionContext::getCurrentRef().getContext().ptr(), defaultContext);
}

// PoCL aborts the whole process when it cannot write its kernel cache or runs
// out of file descriptors while compiling; the backend refuses first, saying why.
bool poclIsADriverHere() {
    std::vector<cv::ocl::PlatformInfo> platforms;
    cv::ocl::getPlatfomsInfo(platforms);
    for (const cv::ocl::PlatformInfo& p : platforms)
        if (p.name().find("Portable Computing Language") != std::string::npos) return true;
    return false;
}

TEST(OpenClCpuBackend, RefusesWherePoclWouldAbort) {
    if (!poclIsADriverHere()) GTEST_SKIP() << "PoCL is not installed here";
    std::mt19937 rng = test::testRng();
    const Image image = test::randomImage(17, 13, 1, Depth::U8, rng);
    const FilterSpec spec = preset("box:3", borderFor(BorderMode::Reflect101, Depth::U8), OutputMapping{});
    std::unique_ptr<Backend> backend = opencl::makeOpenClCpuBackend();

    // A cache folder that cannot be made: its parent is a file.
    const std::string file = ::testing::TempDir() + "pocl-cache-parent-" + std::to_string(::getpid());
    { std::ofstream(file) << "not a folder"; }
    const char* previous = std::getenv("POCL_CACHE_DIR");
    const std::string kept = previous ? previous : "";
    ::setenv("POCL_CACHE_DIR", (file + "/kcache").c_str(), 1);
    RunResult r = backend->run(spec, image.cview(), "filter2d");
    if (previous) ::setenv("POCL_CACHE_DIR", kept.c_str(), 1);
    else ::unsetenv("POCL_CACHE_DIR");
    std::remove(file.c_str());
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("kernel cache"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("POCL_CACHE_DIR"), std::string::npos) << r.error;

    // Too few free file descriptors.
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &old), 0);
    int open = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) open += entry.path().empty() ? 0 : 1;
    rlimit tight = old;
    tight.rlim_cur = static_cast<rlim_t>(open + 8);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
    r = backend->run(spec, image.cview(), "filter2d");
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &old), 0);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("file descriptor"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace fs
