#pragma once
#include <string>
#include <vector>

#include "fs/filter_spec.hpp"

namespace fs {

struct PresetInfo {
    std::string name;     // "sobel-x", "gaussian:SIZE:SIGMA", ...
    std::string summary;  // one line for `kernels` and the UI
};
std::vector<PresetInfo> listPresets();

// Parses "sobel-x", "sobel-y:5", "gaussian:5:1.2", "box:7", "log:9:1.4",
// "unsharp:5:1.0:1.5" ... Returns false with a reason for unknown names or
// bad parameters. Presets set border reflect101 and, for signed responses on
// integer images, nothing else: callers choose abs/scale/offset.
bool makePreset(const std::string& text, FilterSpec& out, std::string* error = nullptr);

// Kernel builders, matching OpenCV's so the tests can compare.
std::vector<float> gaussianVector(int size, double sigma);  // cv::getGaussianKernel
double gaussianSigmaFromSize(int size);                      // sigma used when 0 is given
// cv::getDerivKernels(dx or dy, ksize): derivative and smoothing vectors.
void sobelVectors(int size, int order, std::vector<float>& derivative, std::vector<float>& smooth);

Kernel identityKernel();
Kernel boxKernel(int size);  // normalised
Kernel gaussianKernel(int size, double sigma);
Kernel sobelKernel(int size, bool dx);  // dx: d/dx, else d/dy
Kernel scharrKernel(bool dx);
Kernel prewittKernel(bool dx);
Kernel laplacian4Kernel();
Kernel laplacian8Kernel();
Kernel logKernel(int size, double sigma);  // zero-sum Laplacian of Gaussian
Kernel sharpenKernel();
Kernel embossKernel();
Kernel unsharpKernel(int size, double sigma, double amount);

}  // namespace fs
