#include "fs/filter_spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace fs {

Kernel::Kernel(int w, int h, std::vector<float> values) : width(w), height(h), weights(std::move(values)) {
    if (w <= 0 || h <= 0 || weights.size() != static_cast<std::size_t>(w) * static_cast<std::size_t>(h))
        throw std::invalid_argument("kernel " + std::to_string(w) + "x" + std::to_string(h) + " needs " +
                                    std::to_string(std::max(w, 0) * std::max(h, 0)) + " weights, got " +
                                    std::to_string(weights.size()));
}

Kernel Kernel::fromRows(const std::vector<std::vector<float>>& rows) {
    const int h = static_cast<int>(rows.size());
    const int w = h ? static_cast<int>(rows[0].size()) : 0;
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    for (const auto& r : rows) {
        if (static_cast<int>(r.size()) != w) throw std::invalid_argument("kernel rows have different lengths");
        values.insert(values.end(), r.begin(), r.end());
    }
    return Kernel(w, h, std::move(values));
}

Kernel Kernel::outer(const std::vector<float>& column, const std::vector<float>& row) {
    const int w = static_cast<int>(row.size());
    const int h = static_cast<int>(column.size());
    std::vector<float> values(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) values[static_cast<std::size_t>(y) * w + x] = column[y] * row[x];
    return Kernel(w, h, std::move(values));
}

double Kernel::sum() const {
    double s = 0.0;
    for (float v : weights) s += v;
    return s;
}

bool Kernel::integerWeights() const {
    return std::all_of(weights.begin(), weights.end(), [](float v) { return std::nearbyint(v) == v; });
}

std::optional<DyadicKernel> dyadicForm(const Kernel& k, int maxShift) {
    for (int shift = 0; shift <= maxShift; ++shift) {
        DyadicKernel d;
        d.shift = shift;
        bool exact = true;
        for (float w : k.weights) {
            const double scaled = std::ldexp(static_cast<double>(w), shift);  // exact: a power-of-two scale
            if (!std::isfinite(scaled) || scaled != std::nearbyint(scaled) || std::fabs(scaled) >= 16777216.0) {
                exact = false;
                break;
            }
            d.numerators.push_back(static_cast<int>(scaled));
        }
        if (exact) return d;
    }
    return std::nullopt;
}

std::string validateKernel(const Kernel& k) {
    auto size = [](int n, const char* what) -> std::string {
        if (n < 1 || n > kMaxKernelSize)
            return std::string("kernel ") + what + " " + std::to_string(n) + " is outside 1.." + std::to_string(kMaxKernelSize);
        if (n % 2 == 0) return std::string("kernel ") + what + " " + std::to_string(n) + " is even; the anchor is the centre, so sizes must be odd";
        return {};
    };
    if (std::string why = size(k.width, "width"); !why.empty()) return why;
    if (std::string why = size(k.height, "height"); !why.empty()) return why;
    if (k.weights.size() != static_cast<std::size_t>(k.width) * static_cast<std::size_t>(k.height))
        return "kernel " + std::to_string(k.width) + "x" + std::to_string(k.height) + " needs " +
               std::to_string(k.width * k.height) + " weights, got " + std::to_string(k.weights.size());
    for (std::size_t i = 0; i < k.weights.size(); ++i)
        if (!std::isfinite(k.weights[i]))
            return "kernel weight at row " + std::to_string(i / k.width) + ", column " + std::to_string(i % k.width) +
                   " is not a finite number";
    return {};
}

const char* outputSizeName(OutputSize s) { return s == OutputSize::Valid ? "valid" : "same"; }

bool parseOutputSize(const std::string& text, OutputSize& out) {
    if (text == "same") out = OutputSize::Same;
    else if (text == "valid") out = OutputSize::Valid;
    else return false;
    return true;
}

Image validInterior(const FilterSpec& spec, ConstImageView padded) {
    const int rx = spec.maxRadiusX(), ry = spec.maxRadiusY();
    const int w = padded.width - 2 * rx, h = padded.height - 2 * ry;
    if (w <= 0 || h <= 0)
        throw std::invalid_argument("a " + std::to_string(padded.width) + "x" + std::to_string(padded.height) +
                                    " image has no valid interior for a " + std::to_string(2 * rx + 1) + "x" +
                                    std::to_string(2 * ry + 1) + " kernel");
    Image out(w, h, padded.channels, padded.depth);
    const std::size_t skip = static_cast<std::size_t>(rx) * padded.pixelBytes();
    for (int y = 0; y < h; ++y)
        std::memcpy(out.view().row<std::uint8_t>(y), padded.row<std::uint8_t>(y + ry) + skip, out.view().rowBytes());
    return out;
}

const char* combineName(Combine c) { return c == Combine::Magnitude ? "magnitude" : "single"; }

int FilterSpec::maxRadiusX() const {
    int r = 0;
    for (const Kernel& k : kernels) r = std::max(r, k.radiusX());
    return r;
}

int FilterSpec::maxRadiusY() const {
    int r = 0;
    for (const Kernel& k : kernels) r = std::max(r, k.radiusY());
    return r;
}

std::string emptyOutputReason(const FilterSpec& spec, int width, int height) {
    if (spec.outputWidth(width) > 0 && spec.outputHeight(height) > 0) return {};
    return "valid output of a " + std::to_string(2 * spec.maxRadiusX() + 1) + "x" +
           std::to_string(2 * spec.maxRadiusY() + 1) + " kernel needs an image at least that large, got " +
           std::to_string(width) + "x" + std::to_string(height);
}

std::string validateSpec(const FilterSpec& spec) {
    const std::size_t want = spec.combine == Combine::Magnitude ? 2 : 1;
    if (spec.kernels.size() != want)
        return std::string("a '") + combineName(spec.combine) + "' filter needs " + std::to_string(want) +
               " kernel(s), got " + std::to_string(spec.kernels.size());
    for (std::size_t i = 0; i < spec.kernels.size(); ++i)
        if (std::string why = validateKernel(spec.kernels[i]); !why.empty())
            return want > 1 ? "kernel " + std::to_string(i) + ": " + why : why;
    if (!std::isfinite(spec.output.scale)) return "output scale is not a finite number";
    if (!std::isfinite(spec.output.offset)) return "output offset is not a finite number";
    if (spec.border.mode == BorderMode::Constant && !std::isfinite(spec.border.value))
        return "border constant value is not a finite number";
    return {};
}

std::optional<Separable> separate(const Kernel& k, float tolerance) {
    if (!validateKernel(k).empty()) return std::nullopt;
    int px = 0, py = 0;
    float maxAbs = 0.0f;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (std::fabs(k.at(x, y)) > maxAbs) {
                maxAbs = std::fabs(k.at(x, y));
                px = x;
                py = y;
            }
    if (maxAbs == 0.0f) return std::nullopt;  // all zeros: nothing worth splitting
    Separable s;
    s.row.resize(static_cast<std::size_t>(k.width));
    s.column.resize(static_cast<std::size_t>(k.height));
    // The pivot's row carries the scale; the column is that row's multiplier.
    for (int x = 0; x < k.width; ++x) s.row[x] = k.at(x, py);
    for (int y = 0; y < k.height; ++y) s.column[y] = k.at(px, y) / k.at(px, py);
    const float limit = tolerance * maxAbs;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (std::fabs(k.at(x, y) - s.column[y] * s.row[x]) > limit) return std::nullopt;
    return s;
}

}  // namespace fs
