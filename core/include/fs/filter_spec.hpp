#pragma once
#include <optional>
#include <string>
#include <vector>

#include "fs/border.hpp"
#include "fs/image.hpp"

namespace fs {

constexpr int kMaxKernelSize = 63;

// Correlation weights (no flip, as cv::filter2D), row-major, anchor at the centre.
struct Kernel {
    int width = 0;   // odd, 1..kMaxKernelSize
    int height = 0;  // odd, 1..kMaxKernelSize
    std::vector<float> weights;

    Kernel() = default;
    Kernel(int w, int h, std::vector<float> values);
    static Kernel fromRows(const std::vector<std::vector<float>>& rows);
    static Kernel outer(const std::vector<float>& column, const std::vector<float>& row);

    float at(int x, int y) const { return weights[static_cast<std::size_t>(y) * width + x]; }
    float& at(int x, int y) { return weights[static_cast<std::size_t>(y) * width + x]; }
    int radiusX() const { return width / 2; }
    int radiusY() const { return height / 2; }
    double sum() const;
    bool integerWeights() const;
    bool operator==(const Kernel& o) const { return width == o.width && height == o.height && weights == o.weights; }
};

// Empty string when usable, otherwise the reason ("kernel width 4 is even", ...).
std::string validateKernel(const Kernel& k);

// A kernel whose every weight is exactly numerators[i] / 2^shift (the
// smallest such shift). On integer samples every product and partial sum of
// such a kernel is exact in float while they stay below 2^24 / 2^shift, so
// integer arithmetic gives the float reference's result bit for bit (binomial
// Gaussians, Sobel, Laplacian; not 1/9 box).
struct DyadicKernel {
    std::vector<int> numerators;  // row-major, as Kernel::weights
    int shift = 0;
};
// The dyadic form with shift <= maxShift and |numerator| < 2^24, or nothing.
std::optional<DyadicKernel> dyadicForm(const Kernel& k, int maxShift);

// How several kernel responses become one value. Magnitude = sqrt(k0^2 + k1^2).
enum class Combine { Single, Magnitude };
const char* combineName(Combine c);

// Applied after the convolution: v = scale * v + offset, then |v| when absolute
// (cv::convertScaleAbs order), then stored as F32 or rounded (half to even) and
// saturated to the input depth.
struct OutputMapping {
    float scale = 1.0f;
    float offset = 0.0f;
    bool absolute = false;
    bool floatOutput = false;  // true: raw F32 result whatever the input depth
    bool operator==(const OutputMapping& o) const {
        return scale == o.scale && offset == o.offset && absolute == o.absolute && floatOutput == o.floatOutput;
    }
};

// The result's size. Same: as the input, the border supplies what lies
// outside. Valid: only the pixels whose whole window lies inside the image,
// (W - kw + 1) x (H - kh + 1), so no border value reaches the result.
enum class OutputSize { Same, Valid };
const char* outputSizeName(OutputSize s);  // "same", "valid"
bool parseOutputSize(const std::string& text, OutputSize& out);

// What to compute. Never says who computes it or how.
struct FilterSpec {
    std::string name;
    std::vector<Kernel> kernels;  // 1 for Single, 2 for Magnitude
    Combine combine = Combine::Single;
    Border border;
    OutputMapping output;
    // Images with alpha (4 channels): false keeps the input's alpha in the
    // result (as GIMP does: an edge filter must not make the image
    // transparent); true filters alpha like the colour channels. Applied once
    // for every backend by the services' backends (fs::makeAllBackends).
    bool filterAlpha = false;
    // Applied once for every backend and mode by the services' backends
    // (fs::makeAllBackends): the run is computed padded, then its interior kept.
    OutputSize outputSize = OutputSize::Same;

    int maxRadiusX() const;
    int maxRadiusY() const;
    Depth outputDepth(Depth input) const { return output.floatOutput ? Depth::F32 : input; }
    // The result's size for an input of this size (may be <= 0 for Valid on a small image).
    int outputWidth(int inputWidth) const { return outputSize == OutputSize::Valid ? inputWidth - 2 * maxRadiusX() : inputWidth; }
    int outputHeight(int inputHeight) const {
        return outputSize == OutputSize::Valid ? inputHeight - 2 * maxRadiusY() : inputHeight;
    }
};

// The interior of a padded ("same") result that a Valid spec keeps: an owned
// copy of `padded` less maxRadiusX columns and maxRadiusY rows on each side.
// Throws std::invalid_argument when nothing would remain.
Image validInterior(const FilterSpec& spec, ConstImageView padded);

std::string validateSpec(const FilterSpec& spec);
// Why `spec`'s output of a width x height image would be empty (a valid-size
// kernel larger than the image); empty when it is not.
std::string emptyOutputReason(const FilterSpec& spec, int width, int height);

// Whether a run of `spec` on `input` gives the input's alpha back unfiltered.
inline bool keepsInputAlpha(const FilterSpec& spec, ConstImageView input) {
    return input.channels == 4 && !spec.filterAlpha;
}

// Rank-1 factorisation: kernel(x, y) ~= column[y] * row[x] within
// tolerance * max|weight|. Used by every separable path.
struct Separable {
    std::vector<float> row;     // length kernel.width
    std::vector<float> column;  // length kernel.height
};
std::optional<Separable> separate(const Kernel& k, float tolerance = 1e-5f);

}  // namespace fs
