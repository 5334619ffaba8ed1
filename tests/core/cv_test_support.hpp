#pragma once
// OpenCV side of the tests: the independent implementation results are checked against.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <functional>
#include <string>

#include "fs/io/cv_image.hpp"
#include "test_support.hpp"

namespace fs::test {

inline cv::Mat matOf(const Image& img) { return io::asMat(img.cview()); }

inline int cvBorderOf(BorderMode m) {
    switch (m) {
    case BorderMode::Replicate: return cv::BORDER_REPLICATE;
    case BorderMode::Reflect101: return cv::BORDER_REFLECT_101;
    case BorderMode::Constant: return cv::BORDER_CONSTANT;
    case BorderMode::Wrap: break;
    }
    return cv::BORDER_WRAP;
}

// Runs an OpenCV filter `fn(src, borderType)` with fs's border. Replicate and
// reflect-101 go straight to OpenCV; constant (OpenCV filters only pad with 0)
// and wrap (unsupported by OpenCV filters) are padded by cv::copyMakeBorder
// first, then filtered, then cropped back. Always returns CV_32F.
inline cv::Mat cvFiltered(const cv::Mat& src, const Border& border, int rx, int ry,
                          const std::function<cv::Mat(const cv::Mat&, int)>& fn) {
    cv::Mat asFloat;
    src.convertTo(asFloat, CV_MAKETYPE(CV_32F, src.channels()));
    if (border.mode == BorderMode::Replicate || border.mode == BorderMode::Reflect101)
        return fn(asFloat, cvBorderOf(border.mode));
    cv::Mat padded;
    cv::copyMakeBorder(asFloat, padded, ry, ry, rx, rx, cvBorderOf(border.mode), cv::Scalar::all(border.value));
    return fn(padded, cv::BORDER_REPLICATE)(cv::Rect(rx, ry, src.cols, src.rows)).clone();
}

// v * scale + offset, |v|, then stored in `depth` (saturate_cast rounds half to even).
inline cv::Mat cvMapped(const cv::Mat& response, const OutputMapping& m, Depth depth) {
    cv::Mat v;
    response.convertTo(v, CV_32F, m.scale, m.offset);
    if (m.absolute) v = cv::abs(v);
    cv::Mat out;
    v.convertTo(out, io::cvDepthOf(m.floatOutput ? Depth::F32 : depth));
    return out;
}

inline Image imageOf(const cv::Mat& m) { return io::imageFromMat(m); }

inline std::string testDataPath(const std::string& name) { return std::string(FS_TEST_DATA_DIR) + "/" + name; }

inline Image loadTestImage(const std::string& name) {
    const cv::Mat m = cv::imread(testDataPath(name), cv::IMREAD_UNCHANGED);
    if (m.empty()) throw std::runtime_error("test image missing: " + testDataPath(name));
    return imageOf(m);
}

// A test image converted to another depth (u16 scaled by 257, f32 to [0, 1]).
inline Image convertedTo(const Image& img, Depth depth) {
    const double scale = depth == Depth::U16 ? 257.0 : depth == Depth::F32 ? 1.0 / 255.0 : 1.0;
    cv::Mat out;
    matOf(img).convertTo(out, io::cvDepthOf(depth), scale);
    return imageOf(out);
}

}  // namespace fs::test
