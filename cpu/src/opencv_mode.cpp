// Mode "opencv-exact": cv::filter2D, or cv::sepFilter2D when the kernel is
// rank 1, into CV_32F through the pipeline in fs/cpu/opencv_filter.hpp (shared
// with the OpenCL backend, which runs the same calls on cv::UMat), so it
// matches the reference to float precision. Also registers both OpenCV modes.
#include <opencv2/core.hpp>
#include <stdexcept>
#include <vector>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/opencv_backend.hpp"
#include "fs/cpu/opencv_filter.hpp"
#include "fs/io/cv_image.hpp"
#include "opencv_modes.hpp"

namespace fs::cpu {

const char* const kOpenCvExactMode = "opencv-exact";

namespace detail {
namespace {

void runOpenCvExact(const FilterSpec& spec, ConstImageView input, ImageView output) {
    const cvfilter::Source<cv::Mat> source = cvfilter::prepareSource(spec, io::asMat(input));
    cv::Mat dst = io::asMat(output);
    const void* const target = dst.data;
    cvfilter::filterAndMap(spec, source, cvfilter::Separation::WhenRank1, dst.type(), dst);
    if (dst.data != target) throw std::logic_error("OpenCV reallocated the output instead of filling it");
}

}  // namespace

CpuMode openCvExactMode() {
    return {{kOpenCvExactMode,
             "OpenCV 4's cv::filter2D, or cv::sepFilter2D for rank-1 kernels, always into 32-bit float and then "
             "mapped and rounded as the reference does, so it matches the reference to float precision "
             "(wrap and non-zero constant borders by explicit padding).",
             true, {}},
            &runOpenCvExact};
}

}  // namespace detail

std::unique_ptr<Backend> makeCpuBackendWithOpenCV() {
    std::vector<detail::CpuMode> modes = detail::builtinModes();
    modes.push_back(detail::openCvExactMode());
    modes.push_back(detail::openCvNativeMode());
    return detail::makeCpuBackendWithModes(std::move(modes));
}

}  // namespace fs::cpu
