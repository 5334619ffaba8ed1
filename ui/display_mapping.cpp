#include "display_mapping.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "image_convert.hpp"

namespace fs::ui {

namespace {

constexpr int kSamplesPerSide = 64;

// The largest of 1, 2, 2.5, 4, 5, 8 x 10^k not above `x`: a scale a person can read and type.
double roundDownToReadable(double x) {
    const double decade = std::pow(10.0, std::floor(std::log10(x)));
    double best = decade;
    for (double step : {1.0, 2.0, 2.5, 4.0, 5.0, 8.0})
        if (step * decade <= x * (1.0 + 1e-9)) best = step * decade;
    return best;
}

double displayRange(Depth depth) { return depth == Depth::U16 ? 65535.0 : 255.0; }  // f32 shows as 0..255 too

}  // namespace

bool isZeroSum(const FilterSpec& spec) {
    if (spec.kernels.empty()) return false;
    for (const Kernel& k : spec.kernels) {
        double sum = 0.0, magnitude = 0.0;
        for (float w : k.weights) {
            sum += w;
            magnitude += std::abs(w);
        }
        if (magnitude == 0.0 || std::abs(sum) > 1e-5 * magnitude) return false;
    }
    return true;
}

std::optional<DisplayMapping> zeroSumMapping(const FilterSpec& spec, const Image* image) {
    if (!isZeroSum(spec)) return std::nullopt;
    DisplayMapping mapping{true, 1.0};
    if (!image || image->width() <= 0 || image->height() <= 0) return mapping;
    // The raw response: no scale, offset or |v| from whatever mapping is set now, float so nothing saturates.
    FilterSpec raw = spec;
    raw.output = OutputMapping{};
    raw.output.floatOutput = true;
    const ConstImageView view = image->cview();
    std::vector<double> responses;
    const int stepsX = std::min(kSamplesPerSide, view.width), stepsY = std::min(kSamplesPerSide, view.height);
    responses.reserve(static_cast<std::size_t>(stepsX) * static_cast<std::size_t>(stepsY) * static_cast<std::size_t>(view.channels));
    for (int j = 0; j < stepsY; ++j)
        for (int i = 0; i < stepsX; ++i) {
            // Cell centres, so the grid does not sit on the image's border rows.
            const int x = static_cast<int>((i + 0.5) * view.width / stepsX), y = static_cast<int>((j + 0.5) * view.height / stepsY);
            for (int c = 0; c < view.channels; ++c) responses.push_back(std::abs(probe(raw, view, x, y, c).mapped));
        }
    const auto at = responses.begin() + static_cast<std::ptrdiff_t>(responses.size() * 99 / 100);
    std::nth_element(responses.begin(), at, responses.end());
    const double strong = *at;
    if (!(strong > 0.0) || !std::isfinite(strong)) return mapping;
    mapping.scale = roundDownToReadable(0.9 * displayRange(view.depth) / strong);
    return mapping;
}

}  // namespace fs::ui
