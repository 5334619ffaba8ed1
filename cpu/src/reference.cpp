// Mode "reference": the plainest possible loops, one thread. Every other mode
// (parallel, opencv-exact, CUDA) is tested against this file, so it favours being
// obviously right over being fast.
#include <stdexcept>

#include "cpu_common.hpp"
#include "cpu_modes.hpp"
#include "fs/cpu/cpu_backend.hpp"

namespace fs::cpu {
namespace detail {
namespace {

template <class In> float readSample(ConstImageView in, int x, int y, int c, const Border& border) {
    const int sx = borderIndex(x, in.width, border.mode);
    const int sy = borderIndex(y, in.height, border.mode);
    if (sx < 0 || sy < 0) return border.value;
    return static_cast<float>(in.row<In>(sy)[static_cast<std::ptrdiff_t>(sx) * in.channels + c]);
}

// Correlation (no flip), summed in kernel row-major order from 0.0f.
template <class In> float correlate(const Kernel& k, ConstImageView in, int x, int y, int c, const Border& border) {
    float acc = 0.0f;
    for (int ky = 0; ky < k.height; ++ky)
        for (int kx = 0; kx < k.width; ++kx)
            acc += k.at(kx, ky) * readSample<In>(in, x + kx - k.radiusX(), y + ky - k.radiusY(), c, border);
    return acc;
}

template <class In, class Out> void filterImage(const FilterSpec& spec, ConstImageView in, ImageView out) {
    const bool twoKernels = spec.combine == Combine::Magnitude;
    const RowControl control;  // checked every row: one row of a large kernel can take tens of milliseconds
    control.check();
    for (int y = 0; y < in.height; ++y) {
        Out* dst = out.row<Out>(y);
        for (int x = 0; x < in.width; ++x)
            for (int c = 0; c < in.channels; ++c) {
                const float first = correlate<In>(spec.kernels[0], in, x, y, c, spec.border);
                const float second = twoKernels ? correlate<In>(spec.kernels[1], in, x, y, c, spec.border) : 0.0f;
                dst[static_cast<std::ptrdiff_t>(x) * in.channels + c] =
                    finishSample<Out>(combineResponses(spec.combine, first, second), spec.output);
            }
        control.rowsDone(y + 1, in.height);
    }
}

}  // namespace

void runReference(const FilterSpec& spec, ConstImageView input, ImageView output) {
    withSampleTypes(input.depth, output.depth, [&](auto inSample, auto outSample) {
        filterImage<decltype(inSample), decltype(outSample)>(spec, input, output);
    });
}

}  // namespace detail

Image referenceFilter(const FilterSpec& spec, ConstImageView input) {
    if (std::string why = validateRun(spec, input); !why.empty()) throw std::invalid_argument(why);
    Image output(input.width, input.height, input.channels, spec.outputDepth(input.depth));
    detail::runReference(spec, input, output.view());
    return output;
}

}  // namespace fs::cpu
