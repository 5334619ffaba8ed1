// Mode "opencv-exact": cv::filter2D, or cv::sepFilter2D when the kernel is
// rank 1, into CV_32F through the pipeline in fs/cpu/opencv_filter.hpp (shared
// with the OpenCL backend, which runs the same calls on cv::UMat), so it
// matches the reference to float precision. Also registers both OpenCV modes.
#include <opencv2/core.hpp>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
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
    const cvfilter::Source<cv::Mat> whole = cvfilter::prepareSource(spec, io::asMat(input));
    cv::Mat dst = io::asMat(output);
    bool banded = true;
    for (const Kernel& k : spec.kernels)  // as cvfilter::respond picks sepFilter2D
        banded = banded && ((k.width > 1 && k.height > 1 && separate(k)) || !filter2DMayUseDft(k));
    const std::vector<std::pair<int, int>> bands =
        banded ? rowBands(input.height, static_cast<std::size_t>(input.width) * input.channels)
               : std::vector<std::pair<int, int>>{{0, input.height}};
    const RowControl control;
    for (const auto& [y0, y1] : bands) {
        control.check();
        cvfilter::Source<cv::Mat> band = whole;
        band.image = whole.image.rowRange(whole.interior.y + y0, whole.interior.y + y1);
        band.interior = cv::Rect(whole.interior.x, 0, whole.interior.width, y1 - y0);
        cv::Mat rows = dst.rowRange(y0, y1);
        const void* const target = rows.data;
        cvfilter::filterAndMap(spec, band, cvfilter::Separation::WhenRank1, dst.type(), rows);
        if (rows.data != target) throw std::logic_error("OpenCV reallocated the output instead of filling it");
        control.rowsDone(y1, input.height);
    }
}

}  // namespace

std::vector<std::pair<int, int>> rowBands(int rows, std::size_t rowSamples) {
    constexpr double kBandSamples = 4 << 20;
    const int count = static_cast<int>(
        std::clamp(std::ceil(static_cast<double>(rowSamples) * rows / kBandSamples), 1.0, static_cast<double>(std::min(rows, 64))));
    std::vector<std::pair<int, int>> bands;
    for (int b = 0; b < count; ++b) bands.emplace_back(static_cast<int>(static_cast<long long>(rows) * b / count),
                                                       static_cast<int>(static_cast<long long>(rows) * (b + 1) / count));
    return bands;
}

// OpenCV 4's filter2D takes the DFT from 50 taps (130 for some depth pairs)
// when the source is a whole image.
bool filter2DMayUseDft(const Kernel& k) { return k.width * k.height >= 50; }

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
