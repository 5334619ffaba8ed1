// Mode "opencv-native": OpenCV as its users call it. The kernel's weights say
// which call an OpenCV user would write (cv::GaussianBlur, cv::blur, cv::Sobel,
// cv::Laplacian, else cv::sepFilter2D for rank 1 or cv::filter2D), and the call
// runs in the image's own depth, so OpenCV's fixed-point 8-bit paths run too:
// this is the honest speed baseline, not a second reference. Its results may
// differ from the reference by OpenCV's own rounding (1 level on u8 and u16
// without --scale; up to 3 for Gaussians larger than 9x9, whose weights
// OpenCV rounds to fixed point), and NaN/Inf follow OpenCV's rules (cv::blur's
// running sums spread them; convertTo stores +Inf as 0).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fs/cpu/opencv_backend.hpp"
#include "fs/cpu/opencv_filter.hpp"
#include "fs/io/cv_image.hpp"
#include "fs/presets.hpp"
#include "opencv_modes.hpp"

namespace fs::cpu {

const char* const kOpenCvNativeMode = "opencv-native";

namespace detail {
namespace {

enum class Call { GaussianBlur, Blur, Sobel, Laplacian, SepFilter2D, Filter2D };

// The OpenCV call that computes one kernel, with its arguments.
struct NativeCall {
    Call call = Call::Filter2D;
    cv::Size size;
    double sigma = 0.0;  // GaussianBlur; 0: OpenCV derives it from the size, as the preset did
    int dx = 0, dy = 0, ksize = 0;  // Sobel (dx, dy, ksize), Laplacian (ksize)
    cv::Mat row, column;            // SepFilter2D
    cv::Mat weights;                // Filter2D
    double l1 = 0.0;                // sum |w|: bounds the response
    bool integerWeights = false;

    bool takesScaleAndDelta() const { return call == Call::Sobel || call == Call::Laplacian; }
    bool smooths() const { return call == Call::GaussianBlur || call == Call::Blur; }
};

bool sameWeights(const Kernel& a, const Kernel& b) {
    if (a.width != b.width || a.height != b.height) return false;
    float largest = 0.0f;
    for (float w : b.weights) largest = std::max(largest, std::fabs(w));
    for (std::size_t i = 0; i < a.weights.size(); ++i)
        if (!(std::fabs(a.weights[i] - b.weights[i]) <= 1e-6f * largest)) return false;
    return true;
}

// Candidate sigmas of a Gaussian from its centre row: rounded to 5 significant
// digits first, so a preset's "1.2" comes back as 1.2 and GaussianBlur builds
// the very same kernel, then as estimated.
std::vector<double> gaussianSigmasOf(const Kernel& k) {
    const int c = k.radiusX();
    const double centre = k.at(c, k.radiusY()), next = k.at(c + 1, k.radiusY());
    if (!(centre > 0.0) || !(next > 0.0) || next >= centre) return {};
    const double sigma = std::sqrt(-1.0 / (2.0 * std::log(next / centre)));
    if (!std::isfinite(sigma) || sigma <= 0.0) return {};
    const double unit = std::pow(10.0, std::floor(std::log10(sigma)) - 4);
    return {std::round(sigma / unit) * unit, sigma};
}

Kernel laplacianKernel(int ksize) {
    if (ksize == 1) return laplacian4Kernel();  // cv::Laplacian's ksize 1
    std::vector<float> d2, smooth;
    sobelVectors(ksize, 2, d2, smooth);
    const Kernel a = Kernel::outer(smooth, d2), b = Kernel::outer(d2, smooth);
    Kernel sum = a;
    for (std::size_t i = 0; i < sum.weights.size(); ++i) sum.weights[i] += b.weights[i];
    return sum;
}

NativeCall recognise(const Kernel& k) {
    NativeCall n;
    for (float w : k.weights) n.l1 += std::fabs(w);
    n.integerWeights = k.integerWeights();
    n.size = cv::Size(k.width, k.height);
    if (k.width > 1 || k.height > 1) {
        const float first = k.weights[0];
        bool equal = true;
        for (float w : k.weights) equal = equal && w == first;
        if (equal && std::fabs(first * static_cast<float>(k.weights.size()) - 1.0f) <= 1e-6f) {
            n.call = Call::Blur;
            return n;
        }
        if (k.width == k.height) {
            if (sameWeights(k, gaussianKernel(k.width, 0.0))) {
                n.call = Call::GaussianBlur;
                return n;
            }
            for (double sigma : gaussianSigmasOf(k))
                if (sameWeights(k, gaussianKernel(k.width, sigma))) {
                    n.call = Call::GaussianBlur;
                    n.sigma = sigma;
                    return n;
                }
            for (int ksize : {3, 5, 7}) {
                if (k.width != ksize) continue;
                for (bool dx : {true, false})
                    if (sameWeights(k, sobelKernel(ksize, dx))) {
                        n.call = Call::Sobel;
                        n.dx = dx ? 1 : 0;
                        n.dy = dx ? 0 : 1;
                        n.ksize = ksize;
                        return n;
                    }
            }
            for (int ksize : {1, 3, 5, 7})
                if (sameWeights(k, laplacianKernel(ksize))) {
                    n.call = Call::Laplacian;
                    n.ksize = ksize;
                    return n;
                }
        }
        if (k.width > 1 && k.height > 1)
            if (std::optional<Separable> s = separate(k)) {
                n.call = Call::SepFilter2D;
                n.row = cv::Mat(s->row, true);
                n.column = cv::Mat(s->column, true);
                return n;
            }
    }
    n.call = Call::Filter2D;
    n.weights = cv::Mat(k.height, k.width, CV_32F, const_cast<float*>(k.weights.data())).clone();
    return n;
}

// `ddepth` -1 keeps the source depth. scale and delta only where the call has them.
void callOpenCv(const NativeCall& n, const cv::Mat& src, cv::Mat& dst, int ddepth, double scale, double delta,
                int border) {
    const cv::Point anchor(-1, -1);
    switch (n.call) {
    case Call::GaussianBlur:
        if (ddepth >= 0 && ddepth != src.depth()) {
            cv::Mat converted;  // GaussianBlur has no output depth: a user converts first
            src.convertTo(converted, ddepth);
            cv::GaussianBlur(converted, dst, n.size, n.sigma, n.sigma, border);
        } else {
            cv::GaussianBlur(src, dst, n.size, n.sigma, n.sigma, border);
        }
        return;
    case Call::Blur:
        if (ddepth < 0 || ddepth == src.depth()) cv::blur(src, dst, n.size, anchor, border);
        else cv::boxFilter(src, dst, ddepth, n.size, anchor, true, border);
        return;
    case Call::Sobel: cv::Sobel(src, dst, ddepth, n.dx, n.dy, n.ksize, scale, delta, border); return;
    case Call::Laplacian: cv::Laplacian(src, dst, ddepth, n.ksize, scale, delta, border); return;
    case Call::SepFilter2D: cv::sepFilter2D(src, dst, ddepth, n.row, n.column, anchor, 0.0, border); return;
    case Call::Filter2D: cv::filter2D(src, dst, ddepth, n.weights, anchor, 0.0, border); return;
    }
}

// The image the calls read. OpenCV's filters have no wrap and pad constants
// with 0 only, so those borders are padded with cv::copyMakeBorder in the
// image's own type first (as a user would) and the padding is cut away after.
struct Source {
    cv::Mat image;
    cv::Rect interior;
    int border = cv::BORDER_REFLECT_101;
    bool padded = false;
};

Source prepareSource(const FilterSpec& spec, const cv::Mat& input) {
    Source s{input, cv::Rect(0, 0, input.cols, input.rows), cvfilter::cvBorderOf(spec.border.mode), false};
    const int rx = spec.maxRadiusX(), ry = spec.maxRadiusY();
    const bool smallerThanKernel = input.cols < 2 * rx + 1 || input.rows < 2 * ry + 1;
    const float value = spec.border.value;
    const bool constant = spec.border.mode == BorderMode::Constant;
    if (!smallerThanKernel && spec.border.mode != BorderMode::Wrap && !(constant && value != 0.0f)) return s;
    if (constant && input.depth() != CV_32F) {
        const double top = input.depth() == CV_8U ? 255.0 : 65535.0;
        if (value != std::floor(value) || value < 0.0f || value > top) {
            char text[32];
            std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
            throw std::invalid_argument(std::string("the constant border value ") + text +
                                        " is not a sample of this image's type (whole numbers 0.." +
                                        std::to_string(static_cast<int>(top)) + "), and " + kOpenCvNativeMode +
                                        " pads in the image's own type; use mode " + kOpenCvExactMode +
                                        " for it");
        }
    }
    cv::copyMakeBorder(input, s.image, ry, ry, rx, rx, s.border, cv::Scalar::all(value));
    s.interior = cv::Rect(rx, ry, input.cols, input.rows);
    s.border = cv::BORDER_REPLICATE;  // reaches only padding that is cut away
    s.padded = true;
    return s;
}

// v * scale + offset, |v|, stored in dst's type, with the calls a user makes.
void mapInto(const cv::Mat& value, const OutputMapping& m, cv::Mat& dst) {
    const bool linear = m.scale != 1.0f || m.offset != 0.0f;
    if (dst.depth() == CV_32F) {
        if (linear || value.depth() != CV_32F) value.convertTo(dst, CV_32F, m.scale, m.offset);
        else value.copyTo(dst);
        if (m.absolute) cv::absdiff(dst, cv::Scalar::all(0), dst);
    } else if (m.absolute && dst.depth() == CV_8U) {
        cv::convertScaleAbs(value, dst, m.scale, m.offset);
    } else if (m.absolute) {
        cv::Mat v;
        value.convertTo(v, CV_32F, m.scale, m.offset);
        cv::absdiff(v, cv::Scalar::all(0), v);
        v.convertTo(dst, dst.depth());
    } else {
        value.convertTo(dst, dst.depth(), m.scale, m.offset);
    }
}

// The calls on `source` into `dst` (the same rows of the output).
void filterInto(const FilterSpec& spec, const Source& source, cv::Mat& dst) {
    const cv::Mat& src = source.image;
    const void* const target = dst.data;
    const OutputMapping& m = spec.output;
    const int inDepth = src.depth(), outDepth = dst.depth();

    if (spec.combine == Combine::Magnitude) {
        // Both gradients in float, then cv::magnitude, as in OpenCV's tutorials.
        cv::Mat g[2];
        for (int i = 0; i < 2; ++i) {
            cv::Mat full;
            callOpenCv(recognise(spec.kernels[static_cast<std::size_t>(i)]), source.image, full, CV_32F, 1.0, 0.0,
                       source.border);
            g[i] = full(source.interior);
        }
        cv::Mat magnitude;
        cv::magnitude(g[0], g[1], magnitude);
        mapInto(magnitude, m, dst);
    } else {
        const NativeCall n = recognise(spec.kernels[0]);
        const bool identity = m.scale == 1.0f && m.offset == 0.0f && !m.absolute;
        int ddepth = CV_32F;
        OutputMapping rest = m;  // what is left for mapInto after the call
        if (identity && outDepth == inDepth) {
            ddepth = inDepth;
        } else if (n.takesScaleAndDelta() && !m.absolute) {
            ddepth = outDepth;  // Sobel/Laplacian scale, add and saturate in one rounding
            rest = {};
            rest.floatOutput = m.floatOutput;
        } else if (n.takesScaleAndDelta() && inDepth == CV_8U && outDepth == CV_8U && n.integerWeights &&
                   n.l1 * 255.0 <= 32767.0) {
            ddepth = CV_16S;  // the tutorial's Sobel(..., CV_16S) + convertScaleAbs, exact here
        } else if (n.smooths() && outDepth != CV_32F) {
            ddepth = inDepth;  // blur in the image's depth, then map
        }
        const bool intoOutput = !source.padded && ddepth == outDepth && rest.scale == 1.0f && rest.offset == 0.0f &&
                                !rest.absolute;
        if (intoOutput) {
            callOpenCv(n, source.image, dst, ddepth, m.scale, m.offset, source.border);
        } else {
            cv::Mat full;
            const bool scaled = ddepth != CV_16S && n.takesScaleAndDelta();
            callOpenCv(n, source.image, full, ddepth, scaled ? m.scale : 1.0, scaled ? m.offset : 0.0, source.border);
            if (scaled) {
                rest.scale = 1.0f;
                rest.offset = 0.0f;
            }
            mapInto(full(source.interior), rest, dst);
        }
    }
    if (dst.data != target) throw std::logic_error("OpenCV reallocated the output instead of filling it");
}

void runOpenCvNative(const FilterSpec& spec, ConstImageView input, ImageView output) {
    const Source whole = prepareSource(spec, io::asMat(input));
    cv::Mat dst = io::asMat(output);
    bool banded = true;
    for (const Kernel& k : spec.kernels) banded = banded && !(recognise(k).call == Call::Filter2D && filter2DMayUseDft(k));
    const std::vector<std::pair<int, int>> bands =
        banded ? rowBands(input.height, static_cast<std::size_t>(input.width) * input.channels)
               : std::vector<std::pair<int, int>>{{0, input.height}};
    // Each band is its own image (BORDER_ISOLATED) with the kernel's halo rows
    // around it, cut away after: OpenCV picks its 8-bit fixed-point paths only
    // for whole or isolated images, so a plain ROI would change the arithmetic.
    const int ry = spec.maxRadiusY();
    const RowControl control;
    for (const auto& [y0, y1] : bands) {
        control.check();
        const int top = std::max(0, whole.interior.y + y0 - ry);
        const int bottom = std::min(whole.image.rows, whole.interior.y + y1 + ry);
        Source band = whole;
        band.image = bands.size() > 1 ? whole.image.rowRange(top, bottom) : whole.image;
        band.interior = cv::Rect(whole.interior.x, whole.interior.y + y0 - (bands.size() > 1 ? top : 0),
                                 whole.interior.width, y1 - y0);
        if (bands.size() > 1) {
            band.border |= cv::BORDER_ISOLATED;
            band.padded = true;  // filtered apart, then its interior kept
        }
        cv::Mat rows = dst.rowRange(y0, y1);
        filterInto(spec, band, rows);
        control.rowsDone(y1, input.height);
    }
}

}  // namespace

CpuMode openCvNativeMode() {
    return {{kOpenCvNativeMode,
             "OpenCV as its users call it: cv::GaussianBlur, cv::blur, cv::Sobel or cv::Laplacian for the kernels "
             "they make, else cv::sepFilter2D (rank 1) or cv::filter2D, in the image's own depth; scale, offset and "
             "abs through Sobel's scale and delta, convertScaleAbs and convertTo. OpenCV's fixed-point arithmetic "
             "differs from the reference by up to 1 level on 8- and 16-bit images (up to 3 for Gaussians larger "
             "than 9x9, whose weights it rounds to fixed point; more when scaled up); NaN and infinities follow "
             "OpenCV's rules. Wrap and non-zero constant "
             "borders by padding in the image's type.",
             true, {}},
            &runOpenCvNative};
}

}  // namespace detail
}  // namespace fs::cpu
