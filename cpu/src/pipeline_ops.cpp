// Pipeline point operations: one plain loop each, the definitions in
// fs/pipeline.hpp written out. Rounding and saturation come from pixel_math.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "cpu_common.hpp"
#include "fs/cpu/pipeline.hpp"

namespace fs::cpu {

using detail::withSampleType;

namespace {

void requireImage(ConstImageView in, const char* op) {
    if (std::string why = validateImage(in); !why.empty()) throw std::invalid_argument(std::string(op) + ": " + why);
}

// Calls f(x, y-row pointers) over every sample of `in` and `out` as floats.
template <class Fn> void mapSamples(ConstImageView in, ImageView out, Fn&& fn) {
    withSampleType(in.depth, [&](auto inSample) {
        using In = decltype(inSample);
        withSampleType(out.depth, [&](auto outSample) {
            using Out = decltype(outSample);
            const int n = in.width * in.channels;
            for (int y = 0; y < in.height; ++y) {
                const In* src = in.row<In>(y);
                Out* dst = out.row<Out>(y);
                for (int i = 0; i < n; ++i) dst[i] = PixelTraits<Out>::store(fn(static_cast<float>(src[i])));
            }
        });
    });
}

}  // namespace

Image absoluteValues(ConstImageView in) {
    requireImage(in, "abs");
    Image out(in.width, in.height, in.channels, in.depth);
    mapSamples(in, out.view(), [](float v) { return std::fabs(v); });
    return out;
}

Image magnitudeOf(ConstImageView a, ConstImageView b) {
    requireImage(a, "magnitude");
    requireImage(b, "magnitude");
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.depth != b.depth)
        throw std::invalid_argument("magnitude: the two inputs differ (" + std::to_string(a.width) + "x" +
                                    std::to_string(a.height) + "x" + std::to_string(a.channels) + " " + depthName(a.depth) +
                                    " vs " + std::to_string(b.width) + "x" + std::to_string(b.height) + "x" +
                                    std::to_string(b.channels) + " " + depthName(b.depth) + ")");
    Image out(a.width, a.height, a.channels, a.depth);
    ImageView o = out.view();
    withSampleType(a.depth, [&](auto sample) {
        using T = decltype(sample);
        const int n = a.width * a.channels;
        for (int y = 0; y < a.height; ++y) {
            const T* pa = a.row<T>(y);
            const T* pb = b.row<T>(y);
            T* dst = o.row<T>(y);
            for (int i = 0; i < n; ++i)
                dst[i] = PixelTraits<T>::store(combineMagnitude(static_cast<float>(pa[i]), static_cast<float>(pb[i])));
        }
    });
    return out;
}

Image thresholdMask(ConstImageView in, float threshold) {
    requireImage(in, "threshold");
    Image out(in.width, in.height, in.channels, Depth::U8);
    mapSamples(in, out.view(), [threshold](float v) { return v > threshold ? 255.0f : 0.0f; });
    return out;
}

Image normalizeTo8Bit(ConstImageView in) {
    requireImage(in, "normalize");
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    withSampleType(in.depth, [&](auto sample) {
        using T = decltype(sample);
        for (int y = 0; y < in.height; ++y) {
            const T* src = in.row<T>(y);
            for (int i = 0; i < in.width * in.channels; ++i) {
                const double v = static_cast<double>(src[i]);
                if (!std::isfinite(v)) continue;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    });
    // As cv::normalize(NORM_MINMAX): a flat (or all non-finite) image maps to 0.
    const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
    const double shift = hi > lo ? -lo * scale : 0.0;
    Image out(in.width, in.height, in.channels, Depth::U8);
    mapSamples(in, out.view(), [scale, shift](float v) {
        return std::isfinite(v) ? static_cast<float>(static_cast<double>(v) * scale + shift) : 0.0f;
    });
    return out;
}

Image grayscale(ConstImageView in) {
    requireImage(in, "grayscale");
    if (in.channels == 1) return Image::copyOf(in);
    Image out(in.width, in.height, 1, in.depth);
    ImageView o = out.view();
    withSampleType(in.depth, [&](auto sample) {
        using T = decltype(sample);
        for (int y = 0; y < in.height; ++y) {
            const T* src = in.row<T>(y);
            T* dst = o.row<T>(y);
            for (int x = 0; x < in.width; ++x) {
                const T* p = src + static_cast<std::ptrdiff_t>(x) * in.channels;  // B, G, R(, A)
                dst[x] = PixelTraits<T>::store(0.114f * static_cast<float>(p[0]) + 0.587f * static_cast<float>(p[1]) +
                                               0.299f * static_cast<float>(p[2]));
            }
        }
    });
    return out;
}

}  // namespace fs::cpu
