// Mode "opencv": cv::filter2D, or cv::sepFilter2D when the kernel is rank 1,
// through the pipeline in fs/cpu/opencv_filter.hpp (shared with the OpenCL
// backend, which runs the same calls on cv::UMat).
#include <opencv2/core.hpp>
#include <stdexcept>
#include <vector>

#include "cpu_modes.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/opencv_backend.hpp"
#include "fs/cpu/opencv_filter.hpp"
#include "fs/io/cv_image.hpp"

namespace fs::cpu {
namespace detail {
namespace {

void runOpenCv(const FilterSpec& spec, ConstImageView input, ImageView output) {
    const cvfilter::Source<cv::Mat> source = cvfilter::prepareSource(spec, io::asMat(input));
    cv::Mat dst = io::asMat(output);
    const void* const target = dst.data;
    cvfilter::filterAndMap(spec, source, cvfilter::Separation::WhenRank1, dst.type(), dst);
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
