// FilterSpec -> PreparedFilter: kernels padded to one size, output mapping,
// and the rank-1 factors the separable mode uses.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "fs/lane_math.hpp"
#include "launch.hpp"

namespace fs::gpu {
namespace {

// Integer kernels get integer factors when they have them (Sobel = [1 2 1]^T
// x [-1 0 1]), so the separable mode stays bit-exact on integer images:
// fs::separate's unit-norm factors would make every product inexact.
bool integerFactors(const Kernel& k, std::vector<float>& row, std::vector<float>& column) {
    if (!k.integerWeights()) return false;
    int pivotY = -1, pivotX = 0;
    float best = 0.0f;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (std::fabs(k.at(x, y)) > best) best = std::fabs(k.at(x, y)), pivotY = y, pivotX = x;
    if (pivotY < 0) return false;  // all zero: fs::separate handles it
    long long divisor = 0;
    for (int x = 0; x < k.width; ++x) divisor = std::gcd(divisor, std::llabs(std::llround(k.at(x, pivotY))));
    row.assign(k.width, 0.0f);
    column.assign(k.height, 0.0f);
    for (int x = 0; x < k.width; ++x) row[x] = static_cast<float>(std::llround(k.at(x, pivotY)) / divisor);
    for (int y = 0; y < k.height; ++y) {
        const double c = static_cast<double>(k.at(pivotX, y)) / row[pivotX];
        if (c != std::round(c)) return false;
        column[y] = static_cast<float>(c);
    }
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (static_cast<double>(column[y]) * row[x] != static_cast<double>(k.at(x, y))) return false;
    return true;
}

// Dyadic kernels (every weight n / 2^shift: the binomial Gaussians to 9x9)
// get the factors of their integer numerators, the row's scaled by 2^-shift:
// every product and partial sum of both passes is then exact in float where
// the reference's are (fs::DyadicKernel), so the separable mode matches it
// bit for bit on integer images. fs::separate's pivot-normalised column
// (4/6, 1/6 for 5x5) is inexact.
bool dyadicFactors(const Kernel& k, std::vector<float>& row, std::vector<float>& column) {
    const std::optional<DyadicKernel> d = dyadicForm(k, 16);
    if (!d || d->shift == 0) return false;  // shift 0: integer weights, integerFactors' case
    Kernel numerators(k.width, k.height, std::vector<float>(d->numerators.begin(), d->numerators.end()));
    if (!integerFactors(numerators, row, column)) return false;
    for (float& w : row) w = std::ldexp(w, -d->shift);
    return true;
}

}  // namespace

std::string prepareFilter(const FilterSpec& spec, Depth inDepth, int channels, PreparedFilter& out) {
    const std::string problem = validateSpec(spec);
    if (!problem.empty()) return problem;
    const int count = spec.combine == Combine::Magnitude ? 2 : 1;
    if (static_cast<int>(spec.kernels.size()) < count) return "magnitude needs two kernels";
    PreparedFilter f;
    f.inDepth = inDepth;
    f.channels = channels;
    KernelMath& m = f.math;
    m.kernelCount = count;
    for (int k = 0; k < count; ++k) {
        m.kw = std::max(m.kw, spec.kernels[k].width);
        m.kh = std::max(m.kh, spec.kernels[k].height);
    }
    m.scale = spec.output.scale;
    m.offset = spec.output.offset;
    m.absolute = spec.output.absolute;
    m.outFloat = spec.outputDepth(inDepth) == Depth::F32;
    m.inDepth = inDepth;

    // Zero padding keeps each kernel centred; the extra zero taps add exact zeros.
    f.weights.assign(static_cast<std::size_t>(count) * m.kw * m.kh, 0.0f);
    f.separable = true;
    for (int k = 0; k < count; ++k) {
        const Kernel& src = spec.kernels[k];
        Kernel padded(m.kw, m.kh, std::vector<float>(static_cast<std::size_t>(m.kw) * m.kh, 0.0f));
        const int dx = (m.kw - src.width) / 2, dy = (m.kh - src.height) / 2;
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x) padded.at(x + dx, y + dy) = src.at(x, y);
        std::copy(padded.weights.begin(), padded.weights.end(),
                  f.weights.begin() + static_cast<std::ptrdiff_t>(k) * m.kw * m.kh);
        std::vector<float> row, column;
        if (!integerFactors(padded, row, column) && !dyadicFactors(padded, row, column)) {
            const std::optional<Separable> s = separate(padded);
            if (!s) {
                f.separable = false;
                continue;
            }
            row = s->row;
            column = s->column;
        }
        f.sepRow.insert(f.sepRow.end(), row.begin(), row.end());
        f.sepCol.insert(f.sepCol.end(), column.begin(), column.end());
    }
    if (!f.separable) f.sepRow.clear(), f.sepCol.clear();
    if (inDepth == Depth::U8 && !m.outFloat && m.scale == 1.0f && m.offset == 0.0f && !m.absolute) {
        std::vector<int> numerators;
        std::optional<lanes::LaneForm> form = lanes::LaneForm{};  // a magnitude keeps the default
        for (int k = 0; k < count && form; ++k) {
            const Kernel padded(m.kw, m.kh,
                                std::vector<float>(f.weights.begin() + static_cast<std::ptrdiff_t>(k) * m.kw * m.kh,
                                                   f.weights.begin() + static_cast<std::ptrdiff_t>(k + 1) * m.kw * m.kh));
            const std::optional<DyadicKernel> d = dyadicForm(padded, 8);
            if (!d) form.reset();
            else if (count == 1) form = lanes::laneForm(d->numerators, d->shift);
            else if (!lanes::magnitudeFits(d->numerators, d->shift)) form.reset();
            if (form) numerators.insert(numerators.end(), d->numerators.begin(), d->numerators.end());
        }
        if (form) {
            f.packedLanes = true;
            f.laneForm = *form;
            f.laneWeights = std::move(numerators);
            if (count == 2 && m.kw == 3 && m.kh == 3) {
                // Gradient pairs: kernel 0's centre column and kernel 1's centre row are zero.
                const std::vector<int>& n = f.laneWeights;
                f.laneGradientZeros = n[1] == 0 && n[4] == 0 && n[7] == 0 && n[9 + 3] == 0 && n[9 + 4] == 0 &&
                                      n[9 + 5] == 0;
                f.laneGradientCentre = lanes::gradientPairCentre(n);
            }
        }
    }
    out = std::move(f);
    return {};
}

}  // namespace fs::gpu
