#pragma once
// Private to cpu/: the two OpenCV modes, each in its own file, registered
// together by makeCpuBackendWithOpenCV (opencv_mode.cpp).
#include <cstddef>
#include <utility>
#include <vector>

#include "cpu_modes.hpp"

namespace fs::cpu::detail {

// Row bands [y0, y1) of an image of `rows` rows of `rowSamples` samples, a
// few million samples each: the modes call OpenCV once per band, on a ROI of
// the whole image (OpenCV reads the halo from around the ROI, so the result is
// that of one call), and a cancelled run stops between bands.
std::vector<std::pair<int, int>> rowBands(int rows, std::size_t rowSamples);
// cv::filter2D runs kernels this large through its DFT, and only on whole
// images; such a kernel is filtered in one call, so its result stays OpenCV's.
bool filter2DMayUseDft(const Kernel& k);

CpuMode openCvExactMode();   // opencv_mode.cpp
CpuMode openCvNativeMode();  // opencv_native_mode.cpp

}  // namespace fs::cpu::detail
