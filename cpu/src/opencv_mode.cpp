// Mode "opencv": cv::filter2D, or cv::sepFilter2D when the kernel is rank 1.
// OpenCV's filter2D has no BORDER_WRAP and its BORDER_CONSTANT is always 0,
// so for those two borders the image is padded with cv::copyMakeBorder
// (after an exact conversion to float, so a constant outside the input
// depth's range is kept) and the interior of the filtered padded image is
// kept; the filter's own border then never reaches the interior.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>
#include <vector>

#include "cpu_modes.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/opencv_backend.hpp"
#include "fs/io/cv_image.hpp"

namespace fs::cpu {
namespace detail {
namespace {

struct PreparedSource {
    cv::Mat image;
    cv::Rect interior;  // where the input sits inside `image`
    int borderType = cv::BORDER_REFLECT_101;
};

PreparedSource prepareSource(const FilterSpec& spec, ConstImageView input) {
    PreparedSource p;
    p.image = io::asMat(input);
    p.interior = cv::Rect(0, 0, input.width, input.height);
    switch (spec.border.mode) {
    case BorderMode::Replicate: p.borderType = cv::BORDER_REPLICATE; return p;
    case BorderMode::Reflect101: p.borderType = cv::BORDER_REFLECT_101; return p;
    case BorderMode::Constant:
    case BorderMode::Wrap: break;
    }
    const int rx = spec.maxRadiusX();
    const int ry = spec.maxRadiusY();
    cv::Mat asFloat;
    p.image.convertTo(asFloat, CV_MAKETYPE(CV_32F, input.channels));
    const int type = spec.border.mode == BorderMode::Wrap ? cv::BORDER_WRAP : cv::BORDER_CONSTANT;
    cv::copyMakeBorder(asFloat, p.image, ry, ry, rx, rx, type, cv::Scalar::all(spec.border.value));
    p.interior = cv::Rect(rx, ry, input.width, input.height);
    p.borderType = cv::BORDER_REPLICATE;  // only touches padding that is cut away
    return p;
}

cv::Mat respond(const Kernel& k, const PreparedSource& source) {
    cv::Mat response;
    if (k.width > 1 && k.height > 1) {
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

void runOpenCv(const FilterSpec& spec, ConstImageView input, ImageView output) {
    const PreparedSource source = prepareSource(spec, input);
    cv::Mat value = respond(spec.kernels[0], source);
    if (spec.combine == Combine::Magnitude) {
        cv::Mat magnitude;
        cv::magnitude(value, respond(spec.kernels[1], source), magnitude);
        value = magnitude;
    }
    const OutputMapping& m = spec.output;
    if (m.scale != 1.0f || m.offset != 0.0f) value.convertTo(value, value.type(), m.scale, m.offset);
    if (m.absolute) value = cv::abs(value);
    cv::Mat dst = io::asMat(output);
    const void* const target = dst.data;
    value.convertTo(dst, dst.type());  // rounds half to even and saturates, like fs::saturateU8
    if (dst.data != target) throw std::logic_error("OpenCV reallocated the output instead of filling it");
}

}  // namespace
}  // namespace detail

std::unique_ptr<Backend> makeCpuBackendWithOpenCV() {
    std::vector<detail::CpuMode> modes = detail::builtinModes();
    modes.push_back({{"opencv",
                      "OpenCV 4's cv::filter2D, or cv::sepFilter2D for rank-1 kernels, with the matching border "
                      "(wrap and non-zero constants by explicit padding).",
                      true, {}},
                     &detail::runOpenCv});
    return detail::makeCpuBackendWithModes(std::move(modes));
}

}  // namespace fs::cpu
