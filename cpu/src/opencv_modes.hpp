#pragma once
// Private to cpu/: the two OpenCV modes, each in its own file, registered
// together by makeCpuBackendWithOpenCV (opencv_mode.cpp).
#include "cpu_modes.hpp"

namespace fs::cpu::detail {

CpuMode openCvExactMode();   // opencv_mode.cpp
CpuMode openCvNativeMode();  // opencv_native_mode.cpp

}  // namespace fs::cpu::detail
