#pragma once
// The OpenCV filter pipeline behind the CPU "opencv-exact" mode (cv::Mat) and the
// "opencl" backend (cv::UMat, OpenCV's transparent API): one border policy,
// one response, one output mapping, whichever array type runs it.
//
// OpenCV's filter2D has no BORDER_WRAP and its BORDER_CONSTANT is always 0,
// so for those two borders the image is padded with cv::copyMakeBorder
// (for constant after an exact conversion to float, so a constant outside
// the input depth's range is kept) and the interior of the filtered padded
// image is kept; the filter's own border then never reaches the interior.
// Only in builds with OpenCV (fs_cpu_opencv, fs_opencl).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>

#include "fs/filter_spec.hpp"

namespace fs::cpu::cvfilter {

template <class Array> struct Source {
    Array image;        // a whole array, never a ROI: OpenCL filters would read past a ROI's edge
    cv::Rect interior;  // where the input sits inside `image`
    int borderType = cv::BORDER_REFLECT_101;
};

inline int cvBorderOf(BorderMode mode) {
    switch (mode) {
    case BorderMode::Replicate: return cv::BORDER_REPLICATE;
    case BorderMode::Reflect101: return cv::BORDER_REFLECT_101;
    case BorderMode::Constant: return cv::BORDER_CONSTANT;
    case BorderMode::Wrap: break;
    }
    return cv::BORDER_WRAP;
}

template <class Array> Source<Array> prepareSource(const FilterSpec& spec, const Array& input) {
    Source<Array> p;
    p.image = input;
    p.interior = cv::Rect(0, 0, input.cols, input.rows);
    const int rx = spec.maxRadiusX();
    const int ry = spec.maxRadiusY();
    // OpenCV's OpenCL filters refuse an image smaller than the kernel and
    // silently run their CPU code instead; padded, it stays on the device.
    const bool smallerThanKernel = input.cols < 2 * rx + 1 || input.rows < 2 * ry + 1;
    const bool filterHandlesBorder =
        spec.border.mode == BorderMode::Replicate || spec.border.mode == BorderMode::Reflect101;
    if (filterHandlesBorder && !smallerThanKernel) {
        p.borderType = cvBorderOf(spec.border.mode);
        return p;
    }
    Array source = input;
    if (spec.border.mode == BorderMode::Constant) input.convertTo(source, CV_MAKETYPE(CV_32F, input.channels()));
    Array padded;
    cv::copyMakeBorder(source, padded, ry, ry, rx, rx, cvBorderOf(spec.border.mode), cv::Scalar::all(spec.border.value));
    p.image = padded;
    p.interior = cv::Rect(rx, ry, input.cols, input.rows);
    p.borderType = cv::BORDER_REPLICATE;  // only touches padding that is cut away
    return p;
}

enum class Separation { WhenRank1, Never };

// One kernel's CV_32F response over the interior.
template <class Array> Array respond(const Kernel& k, const Source<Array>& source, Separation separation) {
    Array response;
    if (separation == Separation::WhenRank1 && k.width > 1 && k.height > 1) {
        if (std::optional<Separable> s = separate(k)) {
            cv::sepFilter2D(source.image, response, CV_32F, cv::Mat(s->row), cv::Mat(s->column), cv::Point(-1, -1), 0.0,
                            source.borderType);
            return response(source.interior);
        }
    }
    const cv::Mat weights(k.height, k.width, CV_32F, const_cast<float*>(k.weights.data()));
    cv::filter2D(source.image, response, CV_32F, weights, cv::Point(-1, -1), 0.0, source.borderType);
    return response(source.interior);
}

// The combined CV_32F response, then v * scale + offset, |v|, and the output
// type (convertTo rounds half to even and saturates, like fs::saturateU8, once NaN and
// values past the range are clamped as fs does).
// `out` may already hold a buffer of that size and type; it is then filled in place.
template <class Array>
void filterAndMap(const FilterSpec& spec, const Source<Array>& source, Separation separation, int outputType,
                  Array& out) {
    Array value = respond(spec.kernels[0], source, separation);
    if (spec.combine == Combine::Magnitude) {
        Array magnitude;
        cv::magnitude(value, respond(spec.kernels[1], source, separation), magnitude);
        value = magnitude;
    }
    const OutputMapping& m = spec.output;
    if (m.scale != 1.0f || m.offset != 0.0f) {
        Array mapped;
        value.convertTo(mapped, value.type(), m.scale, m.offset);
        value = mapped;
    }
    if (m.absolute) {
        Array magnitudeOnly;
        cv::absdiff(value, cv::Scalar::all(0), magnitudeOnly);  // |v|, also for cv::UMat (cv::abs is Mat-only)
        value = magnitudeOnly;
    }
    if (CV_MAT_DEPTH(outputType) != CV_32F) {
        // convertTo sends NaN, +Inf and anything past the int range to 0 (cvRound gives INT_MIN);
        // fs::saturateU8/U16 send NaN to 0 and everything above the range, +Inf included, to the maximum.
        cv::patchNaNs(value, 0.0);
        cv::min(value, cv::Scalar::all(CV_MAT_DEPTH(outputType) == CV_8U ? 255.0 : 65535.0), value);
    }
    value.convertTo(out, outputType);
}

}  // namespace fs::cpu::cvfilter
