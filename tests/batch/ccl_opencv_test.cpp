// Labelling and pipeline point operations against OpenCV, the independent
// reference: cv::connectedComponents(..., 4) on thresholded photographs,
// cv::cvtColor, cv::normalize and cv::magnitude.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "cv_test_support.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

// tests/data, plus the shared photographs when the checkout sits beside them (CI, this machine).
std::vector<std::string> photoPaths() {
    std::vector<std::string> paths{test::testDataPath("fruits.jpg"), test::testDataPath("moon.png")};
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(FS_SHARED_IMAGES_DIR, ec)) {
        const std::string ext = entry.path().extension().string();
        if (ext == ".png" || ext == ".jpg") paths.push_back(entry.path().string());
    }
    return paths;
}

cv::Mat grayOf(const cv::Mat& photo) {
    if (photo.channels() == 1) return photo;
    cv::Mat g;
    cv::cvtColor(photo, g, photo.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
    return g;
}

// Same count, and the two labellings split the pixels into the same objects
// (a one-to-one map between labels), whatever numbers each one chose.
::testing::AssertionResult sameComponents(const std::vector<std::int32_t>& ours, long long ourCount, const cv::Mat& theirs,
                                          int theirCount) {
    if (ourCount != theirCount - 1)
        return ::testing::AssertionFailure() << ourCount << " objects, OpenCV finds " << theirCount - 1;
    std::map<std::int32_t, std::int32_t> oursToTheirs, theirsToOurs;
    for (int y = 0; y < theirs.rows; ++y)
        for (int x = 0; x < theirs.cols; ++x) {
            const std::int32_t a = ours[static_cast<std::size_t>(y) * theirs.cols + x], b = theirs.at<std::int32_t>(y, x);
            if ((a == 0) != (b == 0)) return ::testing::AssertionFailure() << "background differs at (" << x << "," << y << ")";
            const auto [i, newA] = oursToTheirs.emplace(a, b);
            const auto [j, newB] = theirsToOurs.emplace(b, a);
            if (i->second != b || j->second != a)
                return ::testing::AssertionFailure() << "objects split differently at (" << x << "," << y << ")";
        }
    return ::testing::AssertionSuccess();
}

TEST(LabellingVsOpenCv, ObjectCountsOnThresholdedPhotographs) {
    int checked = 0;
    for (const std::string& path : photoPaths()) {
        const cv::Mat photo = cv::imread(path, cv::IMREAD_UNCHANGED);
        ASSERT_FALSE(photo.empty()) << path;
        const cv::Mat gray = grayOf(photo);
        for (const double threshold : {-1.0, 60.0, 128.0, 200.0}) {  // -1: Otsu's threshold
            cv::Mat mask;
            cv::threshold(gray, mask, threshold < 0 ? 0 : threshold, 255,
                          threshold < 0 ? cv::THRESH_BINARY | cv::THRESH_OTSU : cv::THRESH_BINARY);
            cv::Mat cvLabels;
            const int cvCount = cv::connectedComponents(mask, cvLabels, 4, CV_32S);
            std::vector<std::int32_t> labels;
            const long long count = cpu::labelComponents(io::asView(mask), labels);
            EXPECT_TRUE(sameComponents(labels, count, cvLabels, cvCount)) << path << " threshold " << threshold;
            ++checked;
        }
    }
    EXPECT_GE(checked, 8);
}

TEST(LabellingVsOpenCv, RandomMasksOfOddSizes) {
    std::mt19937 rng = test::testRng();
    for (int i = 0; i < 6; ++i) {
        std::uniform_int_distribution<int> size(1, 300);
        cv::Mat noise(size(rng), size(rng), CV_8U), mask;
        cv::theRNG().state = rng();  // cv::randu draws from OpenCV's generator; seed it from the test's
        cv::randu(noise, 0, 256);
        cv::threshold(noise, mask, 100 + 20 * i, 255, cv::THRESH_BINARY);
        cv::Mat cvLabels;
        const int cvCount = cv::connectedComponents(mask, cvLabels, 4, CV_32S);
        std::vector<std::int32_t> labels;
        const long long count = cpu::labelComponents(io::asView(mask), labels);
        EXPECT_TRUE(sameComponents(labels, count, cvLabels, cvCount)) << mask.cols << "x" << mask.rows;
    }
}

TEST(PointOpsVsOpenCv, GrayscaleNormalizeMagnitude) {
    const Image photo = test::loadTestImage("fruits.jpg");
    cv::Mat cvGray;
    cv::cvtColor(test::matOf(photo), cvGray, cv::COLOR_BGR2GRAY);  // fixed-point inside OpenCV: +-1
    EXPECT_TRUE(test::imagesMatch(cpu::grayscale(photo.cview()), test::imageOf(cvGray), {1.0, 0.0}));
    for (const Depth depth : {Depth::U16, Depth::F32}) {
        const Image deep = test::convertedTo(photo, depth);
        cv::Mat cvDeep;
        cv::cvtColor(test::matOf(deep), cvDeep, cv::COLOR_BGR2GRAY);
        EXPECT_TRUE(test::imagesMatch(cpu::grayscale(deep.cview()), test::imageOf(cvDeep),
                                      depth == Depth::F32 ? test::Tolerance{1e-5, 1e-5} : test::Tolerance{1.0, 0.0}))
            << depthName(depth);
    }

    const Image gray = test::imageOf(cvGray);
    const FilterSpec sobel = [] {
        FilterSpec s;
        makePreset("sobel-x", s);
        s.output.floatOutput = true;
        return s;
    }();
    const Image gx = cpu::referenceFilter(sobel, gray.cview());
    cv::Mat cvNorm;
    cv::normalize(test::matOf(gx), cvNorm, 0, 255, cv::NORM_MINMAX, CV_8U);
    EXPECT_TRUE(test::imagesMatch(cpu::normalizeTo8Bit(gx.cview()), test::imageOf(cvNorm), {1.0, 0.0}));

    cv::Mat gxM, gyM, cvMag;
    cv::Sobel(test::matOf(gray), gxM, CV_32F, 1, 0, 3);
    cv::Sobel(test::matOf(gray), gyM, CV_32F, 0, 1, 3);
    cv::magnitude(gxM, gyM, cvMag);
    EXPECT_TRUE(test::imagesMatch(cpu::magnitudeOf(test::imageOf(gxM).cview(), test::imageOf(gyM).cview()),
                                  test::imageOf(cvMag), {1e-3, 1e-5}));

    cv::Mat cvMask;
    cv::threshold(cvGray, cvMask, 99, 255, cv::THRESH_BINARY);
    EXPECT_TRUE(test::imagesMatch(cpu::thresholdMask(gray.cview(), 99.0f), test::imageOf(cvMask), test::exact()));
}

#if defined(FS_HAVE_KERNEL_FILES)
// The whole classroom chain on a photograph: its object count is OpenCV's
// count of the chain's own thresholded image.
TEST(PipelineVsOpenCv, EdgeChainCountsWhatOpenCvCounts) {
    const Image photo = test::loadTestImage("fruits.jpg");
    std::string why;
    Pipeline p;
    ASSERT_TRUE(parsePipelineJson(R"({"format": "filterstudio-pipeline", "version": 1, "name": "edges", "steps": [
        {"op": "grayscale"},
        {"op": "convolve", "id": "blur", "filter": "gaussian:5:1.2"},
        {"op": "convolve", "id": "gx", "filter": "sobel-x", "output": {"float": true}},
        {"op": "convolve", "id": "gy", "input": "blur", "filter": "sobel-y", "output": {"float": true}},
        {"op": "magnitude", "inputs": ["gx", "gy"]},
        {"op": "normalize"},
        {"op": "threshold", "id": "mask", "threshold": 50},
        {"op": "label"}]})", p, &why)) << why;
    const std::unique_ptr<Backend> backend = cpu::makeCpuBackend();
    const PipelineResult all = cpu::makePipelineRunner(*backend, "parallel")->run(p, photo.cview());
    ASSERT_TRUE(all.ok()) << all.error;
    Pipeline toMask = p;
    toMask.steps.pop_back();
    const PipelineResult mask = cpu::makePipelineRunner(*backend, "parallel")->run(toMask, photo.cview());
    ASSERT_TRUE(mask.ok()) << mask.error;
    cv::Mat cvLabels;
    const int cvCount = cv::connectedComponents(test::matOf(mask.output), cvLabels, 4, CV_32S);
    ASSERT_TRUE(all.objectCount.has_value());
    EXPECT_EQ(*all.objectCount, cvCount - 1);
    EXPECT_GT(*all.objectCount, 1);
    cv::Mat ourLabels;
    test::matOf(all.output).convertTo(ourLabels, CV_32S);
    std::vector<std::int32_t> ours(ourLabels.begin<std::int32_t>(), ourLabels.end<std::int32_t>());
    EXPECT_TRUE(sameComponents(ours, *all.objectCount, cvLabels, cvCount));
}
#endif

}  // namespace
}  // namespace fs
