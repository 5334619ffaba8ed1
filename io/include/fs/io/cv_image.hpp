#pragma once
// Zero-copy bridges between fs image views and cv::Mat, plus a copying
// import. Header-only so the OpenCV mode and the tests share them without
// pulling in imgcodecs. Channel order is whatever the pixels hold: images
// loaded through fs_io stay in OpenCV's BGR / BGRA order everywhere.
#include <opencv2/core.hpp>
#include <stdexcept>
#include <string>

#include "fs/image.hpp"

namespace fs::io {

inline int cvDepthOf(Depth d) {
    switch (d) {
    case Depth::U8: return CV_8U;
    case Depth::U16: return CV_16U;
    case Depth::F32: break;
    }
    return CV_32F;
}

inline int cvTypeOf(Depth d, int channels) { return CV_MAKETYPE(cvDepthOf(d), channels); }

// False for depths fs has no Depth for (8S, 16S, 32S, 64F, 16F).
inline bool depthFromCv(int cvDepth, Depth& out) {
    switch (cvDepth) {
    case CV_8U: out = Depth::U8; return true;
    case CV_16U: out = Depth::U16; return true;
    case CV_32F: out = Depth::F32; return true;
    default: return false;
    }
}

// A cv::Mat header over the view's pixels (no copy; the view must outlive it).
inline cv::Mat asMat(ImageView v) { return cv::Mat(v.height, v.width, cvTypeOf(v.depth, v.channels), v.data, v.stride); }

// Read-only by contract: OpenCV has no const Mat header, so do not write to it.
inline cv::Mat asMat(ConstImageView v) {
    return cv::Mat(v.height, v.width, cvTypeOf(v.depth, v.channels), const_cast<void*>(v.data), v.stride);
}

// Views over a Mat's pixels (no copy). The Mat must be 2-D, 1/3/4 channels, u8/u16/f32.
inline ImageView asView(cv::Mat& m) {
    ImageView v;
    Depth d = Depth::U8;
    if (m.dims != 2 || !depthFromCv(m.depth(), d)) throw std::invalid_argument("cv::Mat type has no fs equivalent");
    v.data = m.data;
    v.width = m.cols;
    v.height = m.rows;
    v.channels = m.channels();
    v.depth = d;
    v.stride = m.step[0];
    return v;
}

inline ConstImageView asView(const cv::Mat& m) { return asView(const_cast<cv::Mat&>(m)); }

// A packed copy of the Mat. Throws std::invalid_argument for types fs cannot hold.
inline Image imageFromMat(const cv::Mat& m) { return Image::copyOf(asView(m)); }

}  // namespace fs::io
