// Mode "parallel": row tiles shared out over one persistent thread pool, each
// computed four output rows at a time, a chunk of about 1K samples at a time
// (so intermediates stay in L1), with explicit SIMD loops
// (parallel_simd_*.cpp: AVX-512, AVX2+FMA or SSE2, chosen at run time).
// Source rows are read in place where a chunk lies inside the image and from
// a ring of border-padded float rows elsewhere.
//
// Rank-1 kernels run as a column pass then a row pass, with fused
// multiply-adds and mirrored taps paired; box kernels use running column sums
// (integer images) and runs of 2, 4, 8 ... taps. When the kernel's weights are
// n / 2^shift and the samples are integers (u8, u16), every product and
// partial sum of both passes and of the reference is an exactly representable
// float (exactFactors checks the bounds), so the result is the reference's
// bit for bit. Other rank-1 kernels differ from the reference by rounding
// only. Every other kernel (2-D, 1xN, Nx1), and rank-1 kernels whose sums
// could overflow, add in the reference's order without fusing: bit for bit.
// u8 to u8 with one such dyadic kernel, or a box, and no mapping skips the
// floats altogether: IntegerFilter sums in 16-bit integer lanes. Other u8
// rank-1 kernels (Gaussians of any sigma) run there too, with fixed-point
// weights whose bound against the reference is below 1 level (fixedWeights).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cpu_common.hpp"
#include "cpu_modes.hpp"
#include "parallel_pool.hpp"
#include "parallel_simd.hpp"

namespace fs::cpu::detail {
namespace {

double maxSampleOf(Depth d) { return d == Depth::U8 ? 255.0 : 65535.0; }

// Samples (border included) are integers in [0, max]: the condition for the
// exact separable form and for dropping zero weights (0 * x adds nothing
// unless x is NaN or infinite).
bool integerSamples(Depth in, const Border& border) {
    if (in == Depth::F32) return false;
    if (border.mode != BorderMode::Constant) return true;
    return border.value == std::nearbyint(border.value) && border.value >= 0.0f && border.value <= maxSampleOf(in);
}

struct Factors {
    std::vector<float> row, column;
    // exactFactors only: the integers behind them, column = columnInt / 2^shift.
    std::vector<long long> rowInt, columnInt;
    int shift = 0;
};

// Integer row weights r and column weights c / 2^shift with column x row the
// kernel exactly, when every partial sum of either pass (and of the
// reference's 2-D sum) stays an integer multiple of 2^-shift below 2^24 of
// them: then all of them are exact in float, whatever the order or fusing.
std::optional<Factors> exactFactors(const Kernel& k, double maxSample) {
    const std::optional<DyadicKernel> d = dyadicForm(k, 24);
    if (!d) return std::nullopt;
    const auto n = [&](int x, int y) { return static_cast<long long>(d->numerators[static_cast<std::size_t>(y) * k.width + x]); };
    int px = 0, py = 0;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (std::llabs(n(x, y)) > std::llabs(n(px, py))) px = x, py = y;
    if (n(px, py) == 0) return std::nullopt;
    long long g = 0;
    for (int x = 0; x < k.width; ++x) g = std::gcd(g, n(x, py));
    std::vector<long long> r(static_cast<std::size_t>(k.width)), c(static_cast<std::size_t>(k.height));
    for (int x = 0; x < k.width; ++x) r[x] = n(x, py) / g;
    for (int y = 0; y < k.height; ++y) {
        if (n(px, y) % r[px] != 0) return std::nullopt;
        c[y] = n(px, y) / r[px];
    }
    double sumR = 0, sumC = 0;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (c[y] * r[x] != n(x, y)) return std::nullopt;
    for (long long v : r) sumR += static_cast<double>(std::llabs(v));
    for (long long v : c) sumC += static_cast<double>(std::llabs(v));
    if (maxSample * sumR * sumC >= 16777216.0) return std::nullopt;
    Factors f;
    for (long long v : r) f.row.push_back(static_cast<float>(v));
    for (long long v : c) f.column.push_back(std::ldexp(static_cast<float>(v), -d->shift));
    f.rowInt = std::move(r);
    f.columnInt = std::move(c);
    f.shift = d->shift;
    return f;
}

// Taps of one pass: positions (rows or offsets in floats) and weights, with
// a symmetric or antisymmetric kernel's mirrored taps paired (see RowOps).
struct PassTaps {
    std::vector<std::ptrdiff_t> positions;  // 2 * pairs paired, then the singles
    std::vector<float> weights;             // pairs, then singles
    int pairs = 0, singles = 0;
    bool anti = false;
};

template <class Position>
PassTaps foldTaps(const std::vector<float>& w, bool skipZeros, Position position) {
    PassTaps taps;
    const int k = static_cast<int>(w.size());
    bool symmetric = k > 1, anti = k > 1;
    for (int i = 0; i < k; ++i) {
        symmetric = symmetric && w[i] == w[k - 1 - i];
        anti = anti && w[i] == -w[k - 1 - i];
    }
    const auto skip = [&](float v) { return skipZeros && v == 0.0f; };
    std::vector<std::ptrdiff_t> singles;
    std::vector<float> singleWeights;
    if (symmetric || anti) {
        taps.anti = anti && !symmetric;
        for (int i = 0; i < k / 2; ++i)
            if (!skip(w[i])) {
                taps.positions.push_back(position(i));
                taps.positions.push_back(position(k - 1 - i));
                taps.weights.push_back(w[i]);
                ++taps.pairs;
            }
        if (!skip(w[k / 2])) singles.push_back(position(k / 2)), singleWeights.push_back(w[k / 2]);
    } else {
        for (int i = 0; i < k; ++i)
            if (!skip(w[i])) singles.push_back(position(i)), singleWeights.push_back(w[i]);
    }
    taps.singles = static_cast<int>(singles.size());
    taps.positions.insert(taps.positions.end(), singles.begin(), singles.end());
    taps.weights.insert(taps.weights.end(), singleWeights.begin(), singleWeights.end());
    return taps;
}

// One kernel, planned. Offsets are in floats within a padded row, from the
// padded position of output sample 0.
struct KernelPlan {
    bool separable = false;
    bool skipZeros = false;
    int radiusY = 0;
    std::vector<float> column;  // separable: the column weights, all of them
    // Separable with equal column weights on integer samples: the column
    // pass is a running sum over the rows (exact: integers below 2^24) and
    // the row weights carry the column weight.
    bool runningColumn = false;
    std::vector<float> ones;
    PassTaps row;
    // Separable with equal row weights (box): the row pass adds runs of 2, 4,
    // 8 ... taps once each and combines the runs K's binary digits name.
    bool uniformRow = false;
    int rowTaps = 0;
    std::ptrdiff_t firstRowOffset = 0;
    std::vector<float> uniformWeights;  // the row weight, once per binary digit
    // 2-D (and 1xN, Nx1): all weights row-major, one offset per column.
    int width = 0, height = 0;
    std::vector<float> weights;
    std::vector<std::ptrdiff_t> columnOffsets;
    std::size_t taps() const { return std::max({row.positions.size(), ones.size()}); }
};

void planUniformRow(KernelPlan& plan, const std::vector<float>& row, std::ptrdiff_t firstOffset) {
    if (row.size() < 5 || row[0] == 0.0f || !std::all_of(row.begin(), row.end(), [&](float v) { return v == row[0]; }))
        return;
    plan.uniformRow = true;
    plan.rowTaps = static_cast<int>(row.size());
    plan.firstRowOffset = firstOffset;
    plan.uniformWeights.assign(8, row[0]);
}

KernelPlan planKernel(const Kernel& k, Depth in, const Border& border, int padX, int channels) {
    KernelPlan plan;
    // A running sum that never saw a product is +0, and +0 + (+-0) is +0:
    // with finite samples a zero weight changes nothing, even the sign of zero.
    plan.skipZeros = integerSamples(in, border);
    plan.radiusY = k.radiusY();
    const auto offsetOf = [&](int kx) { return static_cast<std::ptrdiff_t>(padX + kx - k.radiusX()) * channels; };
    std::optional<Factors> factors;
    if (k.width > 1 && k.height > 1) {  // 1xN and Nx1 gain nothing from splitting
        if (plan.skipZeros) factors = exactFactors(k, maxSampleOf(in));
        if (!factors)
            if (std::optional<Separable> s = separate(k)) factors = Factors{s->row, s->column, {}, {}, 0};
        // Weights so large that sums can overflow (docs/cli.md "NaN and infinities": 255 x 3e38
        // gives NaN) take the 2-D path, whose overflows are the reference's:
        // a split, folded or fused sum could stay finite where it gives NaN.
        if (factors) {
            double rowSum = 0, columnSum = 0;
            for (float w : factors->row) rowSum += std::fabs(static_cast<double>(w));
            for (float w : factors->column) columnSum += std::fabs(static_cast<double>(w));
            const double maxSample = in == Depth::F32 ? 1.0 : maxSampleOf(in);
            if (rowSum * columnSum * std::max(maxSample, std::fabs(static_cast<double>(border.value))) > 1e30) factors.reset();
        }
    }
    if (factors) {
        plan.separable = true;
        const std::vector<float>& c = factors->column;
        std::vector<float> row = factors->row;
        if (plan.skipZeros && k.height >= 5 && c[0] != 0.0f &&
            std::all_of(c.begin(), c.end(), [&](float v) { return v == c[0]; })) {
            plan.runningColumn = true;
            plan.ones.assign(c.size(), 1.0f);
            for (float& w : row) w *= c[0];
        }
        plan.column = c;
        plan.row = foldTaps(row, plan.skipZeros, offsetOf);
        planUniformRow(plan, row, offsetOf(0));
        return plan;
    }
    plan.width = k.width;
    plan.height = k.height;
    plan.weights = k.weights;
    for (int kx = 0; kx < k.width; ++kx) plan.columnOffsets.push_back(offsetOf(kx));
    return plan;
}

// Output rows are computed this many at a time, sharing their source rows.
constexpr int kRowGroup = 4;

// Per-thread buffers, kept between runs so a run allocates nothing once warm.
struct Scratch {
    std::vector<float> ring;        // padded source rows, see TiledFilter::ringRows_
    std::vector<int> ringSource;    // the image row each ring row holds; -1: the constant border
    std::vector<float> columnPassed;  // separable: kRowGroup padded chunks after the column pass
    std::vector<float> responses;     // kernels x kRowGroup chunks of responses
    std::vector<float> columnSums;    // runningColumn: kernels x kRowGroup padded rows of column sums
    std::vector<const float*> sources;
    std::vector<const void*> typedSources;  // typedInPlace_: integer rows read in place
    std::vector<std::uint8_t> constantRow;  // typedInPlace_: a row of the constant border's samples
    std::vector<float> runs;  // uniformRow: sums of 2, 4, 8 ... taps
};

class TiledFilter {
public:
    TiledFilter(const FilterSpec& spec, ConstImageView in, ImageView out, const simd::RowOps& ops)
        : spec_(spec), in_(in), out_(out), ops_(ops) {
        padX_ = spec.maxRadiusX();
        padY_ = spec.maxRadiusY();
        // A group's source rows, plus the row a running column sum drops.
        ringRows_ = 2 * padY_ + kRowGroup + 1;
        rowValues_ = in.width * in.channels;
        paddedValues_ = (in.width + 2 * padX_) * in.channels;
        // The column pass recomputes each chunk's border halo: keep it a small share.
        chunk_ = std::max(1024, (8 * (paddedValues_ - rowValues_) + 31) / 32 * 32);
        for (const Kernel& k : spec.kernels) plans_.push_back(planKernel(k, in.depth, spec.border, padX_, in.channels));
        // Integer rows are converted as the column pass reads them, saving the
        // ring's stores and reloads (faster for columns of 3 to 31 taps), when
        // every kernel is a plain separable one and the constant border, if
        // any, is an integer sample.
        typedInPlace_ = in.depth != Depth::F32 && integerSamples(in.depth, spec.border);
        for (const KernelPlan& plan : plans_) typedInPlace_ = typedInPlace_ && plan.separable && !plan.runningColumn;
        // Chunks of a row. Where rows are read in place, the halo-wide chunks at
        // either end come from the padded ring and all others from the image.
        // Rows under 2048 samples stay in the ring: on them the extra chunks
        // and conversions cost more than the ring's traffic (docs/performance.md).
        const int halo = padX_ * in.channels;
        edgeChunks_ = (in.depth == Depth::F32 || typedInPlace_) && rowValues_ >= 2048 && rowValues_ > 4 * halo;
        // Edge chunks at least 64 samples wide, so that they too run as vectors.
        edgeWidth_ = std::max(halo, 64);
        const int innerBegin = edgeChunks_ ? edgeWidth_ : 0, innerEnd = edgeChunks_ ? rowValues_ - edgeWidth_ : rowValues_;
        if (innerBegin > 0) chunks_.push_back({0, innerBegin});
        for (int c0 = innerBegin; c0 < innerEnd; c0 += chunk_) chunks_.push_back({c0, std::min(chunk_, innerEnd - c0)});
        if (innerEnd < rowValues_) chunks_.push_back({innerEnd, rowValues_ - innerEnd});
        finish_.combine = spec.combine;
        finish_.scale = spec.output.scale;
        finish_.offset = spec.output.offset;
        finish_.absolute = spec.output.absolute;
        finish_.outDepth = out.depth;
        // Float outputs far beyond the caches are written around them (whole
        // 64-byte lines per store; the narrower u8 and u16 stores measured
        // slower streamed: 8K RGBA8 Gaussian 3 went from 1.15x to 1.3x OpenCV).
        finish_.stream = out.depth == Depth::F32 &&
                         out.rowBytes() * static_cast<std::size_t>(out.height) >= (std::size_t{64} << 20);
        // One 2-D kernel into floats, unmapped: its sums go straight to the
        // output. finish would store v * 1 + 0, which is v but for -0, and
        // these sums, from +0 and never fused, are never -0.
        writesOutput_ = plans_.size() == 1 && !plans_[0].separable && spec.combine == Combine::Single &&
                        out.depth == Depth::F32 && spec.output.scale == 1.0f && spec.output.offset == 0.0f &&
                        !spec.output.absolute && !finish_.stream;
    }

    // Multiply-adds per output row, roughly: what sizes a tile (runTiles).
    double workPerRow() const {
        double taps = 0;
        for (const KernelPlan& plan : plans_)
            taps += plan.separable ? static_cast<double>(plan.column.size() + plan.row.positions.size())
                                   : static_cast<double>(plan.width) * plan.height;
        return taps * rowValues_;
    }

    void filterRows(int y0, int y1, Scratch& s) const {
        const std::size_t kernels = plans_.size();
        s.ring.resize(static_cast<std::size_t>(ringRows_) * paddedValues_);
        s.ringSource.resize(static_cast<std::size_t>(ringRows_));
        s.columnPassed.resize(kRowGroup * runStride());
        s.responses.resize(kernels * kRowGroup * static_cast<std::size_t>(chunk_));
        s.columnSums.resize(kernels * kRowGroup * static_cast<std::size_t>(paddedValues_));
        std::size_t maxTaps = 2 * static_cast<std::size_t>(padY_) + kRowGroup;
        for (const KernelPlan& plan : plans_) maxTaps = std::max(maxTaps, plan.taps());
        s.sources.resize(std::max<std::size_t>(maxTaps, 8));
        if (typedInPlace_) {
            s.typedSources.resize(s.sources.size());
            fillConstantRow(s.constantRow);
        }
        s.runs.resize(6 * runStride());
        for (int j = y0 - padY_; j < y0 + padY_; ++j) loadRow(j, s);
        const std::size_t outBytes = depthBytes(out_.depth);
        for (int y = y0; y < y1; y += kRowGroup) {
            const int rows = std::min(kRowGroup, y1 - y);
            for (int r = 0; r < rows; ++r) loadRow(y + r + padY_, s);
            for (std::size_t k = 0; k < kernels; ++k)
                if (plans_[k].runningColumn)
                    for (int r = 0; r < rows; ++r) updateColumnSum(plans_[k], k, y, r, y + r == y0, s);
            // A chunk at a time, so the column-passed rows and the responses stay in L1.
            for (const auto& [c0, n] : chunks_) {
                if (writesOutput_) {
                    float* outs[kRowGroup];
                    for (int r = 0; r < rows; ++r) outs[r] = out_.row<float>(y + r) + c0;
                    respond(plans_[0], 0, y, rows, c0, n, s, outs);
                    continue;
                }
                for (std::size_t k = 0; k < kernels; ++k) respond(plans_[k], k, y, rows, c0, n, s);
                for (int r = 0; r < rows; ++r) {
                    const float* second = kernels > 1 ? response(s, 1, r) : nullptr;
                    ops_.finish(response(s, 0, r), second, finish_, out_.row<std::uint8_t>(y + r) + c0 * outBytes, n);
                }
            }
        }
        if (finish_.stream) ops_.storeFence();
    }

private:
    void fillConstantRow(std::vector<std::uint8_t>& bytes) const {
        bytes.resize(static_cast<std::size_t>(rowValues_) * depthBytes(in_.depth));
        if (in_.depth == Depth::U8) std::fill(bytes.begin(), bytes.end(), static_cast<std::uint8_t>(spec_.border.value));
        else {
            const auto value = static_cast<std::uint16_t>(spec_.border.value);
            for (int i = 0; i < rowValues_; ++i) std::memcpy(bytes.data() + 2 * i, &value, 2);
        }
    }

    int slotOf(int j) const { return ((j % ringRows_) + ringRows_) % ringRows_; }
    float* ringRow(int j, Scratch& s) const { return s.ring.data() + static_cast<std::size_t>(slotOf(j)) * paddedValues_; }
    std::size_t runStride() const { return static_cast<std::size_t>(chunk_ + paddedValues_ - rowValues_); }
    float* response(Scratch& s, std::size_t kernel, int r) const {
        return s.responses.data() + (kernel * kRowGroup + static_cast<std::size_t>(r)) * chunk_;
    }
    float* columnSum(Scratch& s, std::size_t kernel, int r) const {
        return s.columnSums.data() + (kernel * kRowGroup + static_cast<std::size_t>(r)) * paddedValues_;
    }

    // Float images are read in place wherever a chunk's padded span lies inside
    // the row; the ring holds only the spans that reach a border (see loadRow).
    bool readsInPlace(int c0, int n) const {
        const int halo = padX_ * in_.channels;
        return edgeChunks_ && c0 >= halo && c0 + n + halo <= rowValues_;
    }
    // Integer image row j from padded position c0 on, in place; the constant
    // border's rows (an integer sample, or typedInPlace_ is off) from a row of it.
    const void* typedRowFrom(int j, int c0, Scratch& s) const {
        const int sourceY = s.ringSource[static_cast<std::size_t>(slotOf(j))];
        const std::size_t bytes = depthBytes(in_.depth);
        const std::uint8_t* row = sourceY >= 0 ? in_.row<std::uint8_t>(sourceY) : s.constantRow.data();
        return row + static_cast<std::size_t>(c0 - padX_ * in_.channels) * bytes;
    }
    // Padded row j from padded position c0 on.
    const float* rowFrom(int j, int c0, bool inPlace, Scratch& s) const {
        const int sourceY = s.ringSource[static_cast<std::size_t>(slotOf(j))];
        if (inPlace && sourceY >= 0) return in_.row<float>(sourceY) + (c0 - padX_ * in_.channels);
        return ringRow(j, s) + c0;
    }

    // Source row j (border-mapped here) as floats with padX border pixels each side.
    void loadRow(int j, Scratch& s) const {
        float* dst = ringRow(j, s);
        const Border& border = spec_.border;
        const int sourceY = borderIndex(j, in_.height, border.mode);
        s.ringSource[static_cast<std::size_t>(slotOf(j))] = sourceY;
        if (sourceY < 0) {
            std::fill(dst, dst + paddedValues_, border.value);
            return;
        }
        const int channels = in_.channels;
        float* inner = dst + static_cast<std::ptrdiff_t>(padX_) * channels;
        const auto convert = [&](int from, int count) {
            switch (in_.depth) {
            case Depth::U8: ops_.widenU8(in_.row<std::uint8_t>(sourceY) + from, inner + from, count); break;
            case Depth::U16: ops_.widenU16(in_.row<std::uint16_t>(sourceY) + from, inner + from, count); break;
            case Depth::F32:
                std::memcpy(inner + from, in_.row<float>(sourceY) + from, static_cast<std::size_t>(count) * sizeof(float));
                break;
            }
        };
        if (edgeChunks_) {
            // Only what the two edge chunks read besides the border (readsInPlace).
            const int edge = edgeWidth_ + padX_ * channels;
            convert(0, edge);
            convert(rowValues_ - edge, edge);
        } else {
            convert(0, rowValues_);
        }
        // Edge pixels copy inner ones (near the edges, so always converted).
        const float* from = inner;
        const auto fillEdge = [&](int x) {
            float* d = dst + static_cast<std::ptrdiff_t>(x + padX_) * channels;
            const int sx = borderIndex(x, in_.width, border.mode);
            for (int c = 0; c < channels; ++c) d[c] = sx < 0 ? border.value : from[static_cast<std::ptrdiff_t>(sx) * channels + c];
        };
        for (int x = -padX_; x < 0; ++x) fillEdge(x);
        for (int x = in_.width; x < in_.width + padX_; ++x) fillEdge(x);
    }

    // Column sums for output row y + r: from scratch at a tile's first row,
    // then the previous row's sums plus the row that enters minus the one
    // that leaves.
    void updateColumnSum(const KernelPlan& plan, std::size_t kernel, int y, int r, bool first, Scratch& s) const {
        const int radius = plan.radiusY, row = y + r;
        float* sum = columnSum(s, kernel, r);
        if (first) {
            const float** sources = s.sources.data();
            for (int dy = -radius; dy <= radius; ++dy) sources[dy + radius] = ringRow(row + dy, s);
            ops_.weightedSumFused(sources, plan.ones.data(), 0, 2 * radius + 1, false, sum, paddedValues_);
            return;
        }
        const float* previous = columnSum(s, kernel, (r + kRowGroup - 1) % kRowGroup);
        ops_.slide(sum, previous, ringRow(row + radius, s), ringRow(row - radius - 1, s), paddedValues_);
    }

    // The row pass over a column-passed chunk (v[0] is padded position c0).
    void rowPass(const KernelPlan& plan, const float* v, int n, Scratch& s, float* out) const {
        const float** sources = s.sources.data();
        if (!plan.uniformRow) {
            const PassTaps& row = plan.row;
            for (std::size_t t = 0; t < row.positions.size(); ++t) sources[t] = v + row.positions[t];
            ops_.weightedSumFused(sources, row.weights.data(), row.pairs, row.singles, row.anti, out, n);
            return;
        }
        // runs[b][i]: the sum of 2^b taps from position i; each level is valid
        // as far as the last output reads it.
        const int step = in_.channels, k = plan.rowTaps;
        const float* runs[8] = {v + plan.firstRowOffset};
        int levels = 1;
        for (int width = 1; 2 * width <= k; width *= 2, ++levels) {
            float* d = s.runs.data() + static_cast<std::size_t>(levels - 1) * runStride();
            ops_.add(d, runs[levels - 1], runs[levels - 1] + width * step, n + (k - 2 * width) * step);
            runs[levels] = d;
        }
        int count = 0, offset = 0;
        for (int b = levels - 1; b >= 0; --b)
            if (k & (1 << b)) {
                sources[count++] = runs[b] + offset * step;
                offset += 1 << b;
            }
        ops_.weightedSumFused(sources, plan.uniformWeights.data(), 0, count, false, out, n);
    }

    // Output samples [c0, c0 + n) of rows y .. y + rows - 1 for one kernel,
    // into the responses or, given, into `into`.
    void respond(const KernelPlan& plan, std::size_t kernel, int y, int rows, int c0, int n, Scratch& s,
                 float* const* into = nullptr) const {
        float* outs[kRowGroup];
        for (int r = 0; r < rows; ++r) outs[r] = into ? into[r] : response(s, kernel, r);
        if (plan.runningColumn) {
            for (int r = 0; r < rows; ++r) rowPass(plan, columnSum(s, kernel, r) + c0, n, s, outs[r]);
            return;
        }
        const bool inPlace = readsInPlace(c0, n);
        const int first = y - plan.radiusY, sourceRows = 2 * plan.radiusY + rows;
        const float** sources = s.sources.data();
        if (plan.separable) {
            float* passed[kRowGroup];
            for (int r = 0; r < rows; ++r) passed[r] = s.columnPassed.data() + static_cast<std::size_t>(r) * runStride();
            const int k = static_cast<int>(plan.column.size()), count = n + paddedValues_ - rowValues_;
            if (inPlace && in_.depth != Depth::F32) {
                const void** typed = s.typedSources.data();
                for (int t = 0; t < sourceRows; ++t) typed[t] = typedRowFrom(first + t, c0, s);
                if (in_.depth == Depth::U8)
                    ops_.columnRowsFusedU8(reinterpret_cast<const std::uint8_t* const*>(typed), plan.column.data(), k,
                                           plan.skipZeros, rows, passed, count);
                else
                    ops_.columnRowsFusedU16(reinterpret_cast<const std::uint16_t* const*>(typed), plan.column.data(), k,
                                            plan.skipZeros, rows, passed, count);
            } else {
                for (int t = 0; t < sourceRows; ++t) sources[t] = rowFrom(first + t, c0, inPlace, s);
                ops_.columnRowsFused(sources, plan.column.data(), k, plan.skipZeros, rows, passed, count);
            }
            for (int r = 0; r < rows; ++r) rowPass(plan, passed[r], n, s, outs[r]);
            return;
        }
        for (int t = 0; t < sourceRows; ++t) sources[t] = rowFrom(first + t, c0, inPlace, s);
        // One output row at a time: each tap is a multiply and an add on the
        // two vector ports whatever the grouping, and sharing loads across
        // rows measured slower (docs/performance.md).
        for (int r = 0; r < rows; ++r)
            ops_.denseRowExact(sources + r, plan.weights.data(), plan.height, plan.width, plan.columnOffsets.data(),
                               plan.skipZeros, outs[r], n);
    }

    const FilterSpec& spec_;
    ConstImageView in_;
    ImageView out_;
    const simd::RowOps& ops_;
    std::vector<KernelPlan> plans_;
    simd::FinishParams finish_;
    int padX_ = 0, padY_ = 0, ringRows_ = 1;
    int rowValues_ = 0, paddedValues_ = 0, chunk_ = 1024;
    bool typedInPlace_ = false, edgeChunks_ = false, writesOutput_ = false;
    int edgeWidth_ = 0;
    std::vector<std::pair<int, int>> chunks_;  // (first sample, count)
};

// Fixed-point weights for rank-1 kernels of any weights on u8 (Gaussians of
// any sigma): column weights C / 2^a and row weights R / 2^d, integers below
// 2^15, each set rounded so that it sums to what the real weights sum to
// (flat areas stay flat). The column pass keeps 32-bit sums S and stores
// T = round(S / 2^b) in 16 bits, at most 2^14 (so mirrored taps fold in
// 16 bits); the row pass sums R x T exactly in 32 bits and rounds once.
struct FixedWeights {
    std::vector<std::int16_t> column, row;
    int fold[2] = {0, 0};  // column, row: +1 symmetric, -1 antisymmetric, 0 neither
    int columnShift = 0, shift = 0;
    double bound = 0.0;  // in levels: the most the result can differ from the reference's
};

// Integers near v (rounded), summing to round(sum of v) where mirrored groups
// allow it, the correction going to the entries rounded furthest from v.
std::vector<long long> roundedWithSum(const std::vector<double>& v, int fold) {
    const int k = static_cast<int>(v.size());
    std::vector<long long> n(v.size());
    double total = 0;
    for (int i = 0; i < k; ++i) n[i] = std::llround(v[i]), total += v[i];
    long long missing = std::llround(total) - std::accumulate(n.begin(), n.end(), 0LL);
    // Groups that change together: a mirrored pair of equal weights, or one entry.
    std::vector<std::vector<int>> groups;
    for (int i = 0; i < k; ++i) {
        if (fold > 0 && i < k / 2) groups.push_back({i, k - 1 - i});
        else if (fold == 0 || (fold > 0 && i == k / 2)) groups.push_back({i});
    }
    while (missing != 0) {
        const long long step = missing > 0 ? 1 : -1;
        int best = -1;
        double bestResidue = -1e300;
        for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
            const int i = groups[g][0];
            const double residue = static_cast<double>(step) * (v[i] - static_cast<double>(n[i]));
            if (static_cast<long long>(groups[g].size()) <= std::llabs(missing) && residue > bestResidue)
                best = g, bestResidue = residue;
        }
        if (best < 0) break;  // an even symmetric kernel one short: the bound counts it
        for (int i : groups[best]) n[i] += step;
        missing -= step * static_cast<long long>(groups[best].size());
    }
    return n;
}

// +1 when w is symmetric, -1 antisymmetric, within a millionth of its largest
// weight (then made exactly so), else 0.
int symmetrize(std::vector<double>& w) {
    const int k = static_cast<int>(w.size());
    double largest = 0;
    for (double v : w) largest = std::max(largest, std::fabs(v));
    const double slack = 1e-6 * largest;
    for (int sign : {1, -1}) {
        bool holds = k > 1;
        for (int i = 0; i < k; ++i) holds = holds && std::fabs(w[i] - sign * w[k - 1 - i]) <= slack;
        if (!holds) continue;
        for (int i = 0; i < k / 2; ++i) {
            const double mean = (w[i] + sign * w[k - 1 - i]) / 2;
            w[i] = mean;
            w[k - 1 - i] = sign * mean;
        }
        if (sign < 0 && k % 2 != 0) w[k / 2] = 0;
        return sign;
    }
    return 0;
}

// The largest exponent e <= 24 with every |w| * 2^e at most 32000 (room
// below 2^15 for roundedWithSum's corrections), and the sum of |w| * 2^e at
// most limit; -1 when even e = 0 is too large.
int fractionBits(const std::vector<double>& w, double limit) {
    double largest = 0, sum = 0;
    for (double v : w) largest = std::max(largest, std::fabs(v)), sum += std::fabs(v);
    for (int e = 24; e >= 0; --e)
        if (std::ldexp(largest, e) <= 32000.0 && std::ldexp(sum, e) <= limit) return e;
    return -1;
}

std::optional<FixedWeights> fixedWeights(const Kernel& k) {
    if (k.width < 2 || k.height < 2 || !separate(k)) return std::nullopt;
    int px = 0, py = 0;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (std::fabs(k.at(x, y)) > std::fabs(k.at(px, py))) px = x, py = y;
    std::vector<double> row(static_cast<std::size_t>(k.width)), column(static_cast<std::size_t>(k.height));
    double sumRow = 0, sumColumn = 0;
    for (int x = 0; x < k.width; ++x) row[x] = k.at(x, py), sumRow += std::fabs(row[x]);
    for (int y = 0; y < k.height; ++y) column[y] = static_cast<double>(k.at(px, y)) / k.at(px, py), sumColumn += std::fabs(column[y]);
    // Equal sums of |weight| on both sides: the same relative precision for each.
    const double balance = std::sqrt(sumRow / sumColumn);
    for (double& v : row) v /= balance;
    for (double& v : column) v *= balance;
    FixedWeights f;
    f.fold[0] = symmetrize(column);
    f.fold[1] = symmetrize(row);
    const int a = fractionBits(column, 1 << 22);  // 255 x sum |C| below 2^30
    if (a < 0) return std::nullopt;
    std::vector<double> scaled;
    for (double v : column) scaled.push_back(std::ldexp(v, a));
    const std::vector<long long> c = roundedWithSum(scaled, f.fold[0]);
    long long sumC = 0;
    for (long long v : c) sumC += std::llabs(v);
    // T's largest magnitude, rounded half up, at most 2^14 - 1.
    const auto largestT = [&](int b) { return (255 * sumC + (b > 0 ? 1LL << (b - 1) : 0)) >> b; };
    int b = 0;
    while (largestT(b) > 16383) ++b;
    const long long maxT = largestT(b);
    // Row sums below 2^30, with room for the rounding's half.
    const int d = fractionBits(row, std::ldexp(1.0, 30) / static_cast<double>(std::max(maxT, 1LL)));
    if (d < 0) return std::nullopt;
    scaled.clear();
    for (double v : row) scaled.push_back(std::ldexp(v, d));
    const std::vector<long long> r = roundedWithSum(scaled, f.fold[1]);
    f.columnShift = b;
    f.shift = a - b + d;
    if (f.shift < 0 || f.shift > 30) return std::nullopt;
    for (const std::vector<long long>* w : {&c, &r})
        for (long long v : *w)
            if (std::llabs(v) > 32767) return std::nullopt;
    for (long long v : c) f.column.push_back(static_cast<std::int16_t>(v));
    for (long long v : r) f.row.push_back(static_cast<std::int16_t>(v));
    // The bound: with samples X in [0, 255], the result before its rounding is
    // sum C_y R_x X / 2^(a+d) + sum R_x e_x / 2^(d+a-b), |e_x| <= 1/2 (T's
    // rounding), against the reference's sum w X, itself within
    // (n + 1) 2^-24 sum |w X| of the exact one (n products, float sums).
    // Values less than 1 apart round at most 1 level apart.
    double above = 0, below = 0, sumW = 0, sumR = 0;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x) {
            const double w = k.at(x, y);
            const double e = std::ldexp(static_cast<double>(c[y]) * static_cast<double>(r[x]), -(a + d)) - w;
            (e > 0 ? above : below) += std::fabs(e);
            sumW += std::fabs(w);
        }
    for (long long v : r) sumR += std::fabs(static_cast<double>(v));
    const double n = static_cast<double>(k.width) * k.height;
    f.bound = 255.0 * std::max(above, below) + 0.5 * std::ldexp(sumR, b - a - d) + (n + 1) * std::ldexp(255.0 * sumW, -24);
    return f;
}

// u8 in, u8 out, one kernel, no mapping: both passes in 16-bit integer lanes
// (RowOps::integerColumnU8 / integerRowU8 / integerBoxRowU8).
//
// Rank-1 dyadic kernels: with integer row weights r, column weights c and the
// kernel c x r / 2^shift, every output is S / 2^shift for an integer S; the
// reference's float sum is exact (exactFactors), so it too rounds S / 2^shift
// half to even, and one rounding shift gives its result bit for bit. The
// lanes wrap, so only the final S (plus the rounding's half) must fit one:
// unsigned 16 bits for non-negative weights, signed 16 bits otherwise.
//
// Boxes (one weight w, not dyadic): S, the plain sum, then float(S) * w
// rounded once. With w = float(1 / A) for A taps (odd, at most 257 here),
// S / A is at least 1 / 514 from a tie and float(S) * w within 3e-5 of it,
// so this is the correctly rounded value; the reference adds A rounded
// products and can land on the other side (at most 1 apart, the tolerance
// of every non-dyadic rank-1 path).
//
// Other rank-1 kernels (Gaussians of any sigma): fixed-point weights
// (fixedWeights) in 32-bit sums, RowOps::fixedColumnU8 / fixedRowU8, when
// their bound against the reference is below 1 level.
struct IntegerPlan {
    std::vector<std::int16_t> column, row;  // row: taps with non-zero weight
    std::vector<std::ptrdiff_t> rowOffsets;  // in samples, from the padded position of output 0
    int shift = 0;
    bool isSigned = false;
    // Sums past 16 bits (Gaussian 7: 255 x 64 x 64): column sums in signed
    // 16 bits, the row pass in 32 (integerRowWideU8).
    bool wide = false;
    std::vector<std::int32_t> weightPairs;
    bool box = false;
    bool wideBox = false;        // box: BoxSumFilter's 32-bit sums (see planInteger)
    bool runningColumn = false;  // box: the column sum slides from row to row
    float scale = 1.0f;          // box: the weight
    // Fixed point: column weights in columnPairs, row weights in weightPairs
    // (both as RowOps::fixedColumnU8 takes them), rowOffsets every tap's.
    bool fixedPoint = false;
    std::vector<std::int32_t> columnPairs;
    int columnFold = 0, rowFold = 0, columnShift = 0;
    int radiusX = 0, radiusY = 0;
};

// Weights as RowOps::fixedColumnU8 takes them: the folded terms' weights in pairs.
std::vector<std::int32_t> termWeightPairs(const std::vector<std::int16_t>& w, int fold) {
    const std::size_t terms = fold == 0 ? w.size() : w.size() / 2 + w.size() % 2;
    std::vector<std::int32_t> pairs((terms + 1) / 2, 0);
    for (std::size_t t = 0; t < terms; ++t)
        pairs[t / 2] |= static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint16_t>(w[t])) << (t % 2 * 16));
    return pairs;
}

// One positive weight: a box. Its u8 sums stay in 16 bits up to 257 taps
// (integerBox); past that, and for 15 columns or more, BoxSumFilter sums in
// 32 bits, below 2^24 so that float(S) is exact.
bool uniformPositive(const Kernel& k) {
    const float w = k.weights[0];
    return w > 0.0f && std::isfinite(w) && std::all_of(k.weights.begin(), k.weights.end(), [&](float v) { return v == w; });
}
bool integerBox(const Kernel& k) { return uniformPositive(k) && 255LL * k.width * k.height <= 65535; }
bool wideIntegerBox(const Kernel& k) { return uniformPositive(k) && 255LL * k.width * k.height < (1LL << 24); }

// Fixed-point weights for a rank-1 kernel neither exact path takes. Kernels
// with large sums of |weight| (big weights, strong negative lobes) keep too
// few fraction bits to stay within 1 level of the reference: those keep the
// float passes. Boxes never take it: running sums (integerBox, BoxSumFilter)
// cost a few operations a sample where fixed point costs k a pass.
std::optional<FixedWeights> fixedPointWeights(const Kernel& k) {
    const bool uniform = std::all_of(k.weights.begin(), k.weights.end(), [&](float v) { return v == k.weights[0]; });
    if (uniform || exactFactors(k, 255.0)) return std::nullopt;
    std::optional<FixedWeights> f = fixedWeights(k);
    if (!f || !(f->bound < 1.0)) return std::nullopt;
    return f;
}

std::optional<IntegerPlan> planInteger(const FilterSpec& spec, ConstImageView in, ImageView out) {
    if (in.depth != Depth::U8 || out.depth != Depth::U8 || spec.kernels.size() != 1 ||
        spec.combine != Combine::Single || spec.output.scale != 1.0f || spec.output.offset != 0.0f ||
        spec.output.absolute || !integerSamples(in.depth, spec.border))
        return std::nullopt;
    const Kernel& k = spec.kernels[0];
    IntegerPlan plan;
    plan.radiusX = k.radiusX();
    plan.radiusY = k.radiusY();
    const std::optional<Factors> f = exactFactors(k, 255.0);
    if (!f) {
        if (const std::optional<FixedWeights> fixed = fixedPointWeights(k)) {
            plan.fixedPoint = true;
            plan.column = fixed->column;
            plan.row = fixed->row;
            plan.columnFold = fixed->fold[0];
            plan.rowFold = fixed->fold[1];
            plan.columnShift = fixed->columnShift;
            plan.shift = fixed->shift;
            plan.columnPairs = termWeightPairs(plan.column, plan.columnFold);
            plan.weightPairs = termWeightPairs(plan.row, plan.rowFold);
            for (int x = 0; x < k.width; ++x) plan.rowOffsets.push_back(static_cast<std::ptrdiff_t>(x) * in.channels);
            return plan;
        }
        if (!integerBox(k) && !wideIntegerBox(k)) return std::nullopt;
        const float w = k.weights[0];
        plan.box = true;
        // From 15 columns the 32-bit sums' O(1) row pass beats the 16-bit
        // one's k adds a sample (512x512: 1.5x; 8K gray: 0.9x, RGBA: 1.06x).
        plan.wideBox = !integerBox(k) || k.width >= 15;
        plan.runningColumn = k.height >= 5;
        plan.scale = w;
        plan.column.assign(static_cast<std::size_t>(k.height), 1);
        plan.row.assign(static_cast<std::size_t>(k.width), 1);
        return plan;
    }
    long long sumR = 0, sumC = 0;
    bool negative = false;
    for (long long v : f->rowInt) sumR += std::llabs(v), negative = negative || v < 0;
    for (long long v : f->columnInt) sumC += std::llabs(v), negative = negative || v < 0;
    const long long half = f->shift > 0 ? 1LL << (f->shift - 1) : 0;
    const long long largest = 255 * sumR * sumC + half;
    plan.isSigned = negative || largest > 65535;
    if (largest > (plan.isSigned ? 32767 : 65535)) {
        plan.wide = true;
        if (255 * sumC > 32767 || largest >= (1LL << 31)) return std::nullopt;
        for (long long v : f->rowInt)
            if (std::llabs(v) > 32767) return std::nullopt;
    }
    plan.shift = f->shift;
    for (long long v : f->columnInt) plan.column.push_back(static_cast<std::int16_t>(v));
    for (int x = 0; x < k.width; ++x)
        if (f->rowInt[static_cast<std::size_t>(x)] != 0) {
            plan.row.push_back(static_cast<std::int16_t>(f->rowInt[static_cast<std::size_t>(x)]));
            plan.rowOffsets.push_back(static_cast<std::ptrdiff_t>(x) * in.channels);
        }
    if (plan.wide) {
        if (plan.row.size() % 2 != 0) plan.row.push_back(0), plan.rowOffsets.push_back(plan.rowOffsets.back());
        for (std::size_t t = 0; t < plan.row.size(); t += 2)
            plan.weightPairs.push_back(static_cast<std::int32_t>(static_cast<std::uint16_t>(plan.row[t]) |
                                                                 (static_cast<std::uint32_t>(static_cast<std::uint16_t>(plan.row[t + 1])) << 16)));
    }
    return plan;
}

struct IntegerScratch {
    std::vector<std::int16_t> columnSums;  // one padded row
    std::vector<std::uint8_t> constantRow;
    std::vector<const std::uint8_t*> rows, chunkRows;
};

// One output row at a time: the column pass of a 2K-sample chunk (or, for a
// box after a tile's first row, the running sum's update), then the row pass
// of every output whose taps it completed, so the column sums are read back
// from L1 and a 512-sample row costs two calls, not four passes.
class IntegerFilter {
public:
    IntegerFilter(const FilterSpec& spec, const IntegerPlan& plan, ConstImageView in, ImageView out, const simd::RowOps& ops)
        : border_(spec.border), plan_(plan), in_(in), out_(out), ops_(ops) {
        rowValues_ = in.width * in.channels;
        halo_ = plan.radiusX * in.channels;
        long long columnTotal = 0;
        for (std::int16_t c : plan.column) columnTotal += c;
        constantColumn_ = columnValue(columnTotal * static_cast<long long>(border_.value));
    }

    // A column pass's result from its exact sum: wrapped to 16 bits, or
    // rounded to fixed point's 16-bit column values.
    std::int16_t columnValue(long long sum) const {
        if (plan_.fixedPoint && plan_.columnShift > 0) sum = (sum + (1LL << (plan_.columnShift - 1))) >> plan_.columnShift;
        return static_cast<std::int16_t>(static_cast<std::uint16_t>(sum & 0xFFFF));
    }

    void filterRows(int y0, int y1, IntegerScratch& s) const {
        constexpr int kChunk = 2048;
        const int k = static_cast<int>(plan_.column.size()), channels = in_.channels;
        s.columnSums.resize(static_cast<std::size_t>(rowValues_ + 2 * halo_));
        s.rows.resize(static_cast<std::size_t>(k));
        s.chunkRows.resize(static_cast<std::size_t>(k));
        if (border_.mode == BorderMode::Constant)
            s.constantRow.assign(static_cast<std::size_t>(rowValues_), static_cast<std::uint8_t>(border_.value));
        std::int16_t* sums = s.columnSums.data();
        std::int16_t* inner = sums + halo_;
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* leaving = nullptr;  // runningColumn: the row the sum drops
            if (plan_.runningColumn && y > y0) {
                const int sourceY = borderIndex(y - plan_.radiusY - 1, in_.height, border_.mode);
                leaving = sourceY >= 0 ? in_.row<std::uint8_t>(sourceY) : s.constantRow.data();
            }
            for (int t = 0; t < k; ++t) {
                const int sourceY = borderIndex(y - plan_.radiusY + t, in_.height, border_.mode);
                s.rows[static_cast<std::size_t>(t)] = sourceY >= 0 ? in_.row<std::uint8_t>(sourceY) : s.constantRow.data();
            }
            // Border columns: the column sum of the column they copy (the
            // column pass commutes with the horizontal border), or of a
            // constant column.
            const auto fillEdge = [&](int x) {
                const int sx = borderIndex(x, in_.width, border_.mode);
                for (int c = 0; c < channels; ++c) {
                    long long a = 0;
                    if (sx >= 0)
                        for (int t = 0; t < k; ++t)
                            a += static_cast<long long>(plan_.column[static_cast<std::size_t>(t)]) *
                                 s.rows[static_cast<std::size_t>(t)][sx * channels + c];
                    inner[x * channels + c] = sx < 0 ? constantColumn_ : columnValue(a);
                }
            };
            for (int x = -plan_.radiusX; x < 0; ++x) fillEdge(x);
            for (int x = in_.width; x < in_.width + plan_.radiusX; ++x) fillEdge(x);
            std::uint8_t* dst = out_.row<std::uint8_t>(y);
            int done = 0;
            for (int c0 = 0; c0 < rowValues_; c0 += kChunk) {
                const int n = std::min(kChunk, rowValues_ - c0);
                if (leaving) {
                    ops_.integerSlideU8(inner + c0, s.rows[static_cast<std::size_t>(k - 1)] + c0, leaving + c0, n);
                } else {
                    for (int t = 0; t < k; ++t) s.chunkRows[static_cast<std::size_t>(t)] = s.rows[static_cast<std::size_t>(t)] + c0;
                    if (plan_.fixedPoint)
                        ops_.fixedColumnU8(s.chunkRows.data(), plan_.columnPairs.data(), k, plan_.columnFold,
                                           plan_.columnShift, inner + c0, n);
                    else
                        ops_.integerColumnU8(s.chunkRows.data(), plan_.column.data(), k, inner + c0, n);
                }
                // Output i reads padded sums i .. i + 2 * halo.
                const int ready = c0 + n == rowValues_ ? rowValues_ : std::max(done, c0 + n - halo_);
                if (ready > done) {
                    if (plan_.fixedPoint)
                        ops_.fixedRowU8(sums + done, plan_.rowOffsets.data(), plan_.weightPairs.data(),
                                        static_cast<int>(plan_.row.size()), plan_.rowFold, plan_.shift, dst + done,
                                        ready - done);
                    else if (plan_.wide)
                        ops_.integerRowWideU8(sums + done, plan_.rowOffsets.data(), plan_.weightPairs.data(),
                                              static_cast<int>(plan_.row.size()), plan_.shift, dst + done, ready - done);
                    else if (plan_.box)
                        ops_.integerBoxRowU8(sums + done, static_cast<int>(plan_.row.size()), channels, plan_.scale, dst + done,
                                             ready - done);
                    else
                        ops_.integerRowU8(sums + done, plan_.rowOffsets.data(), plan_.row.data(),
                                          static_cast<int>(plan_.row.size()), plan_.shift, plan_.isSigned, dst + done,
                                          ready - done);
                }
                done = ready;
            }
        }
    }

private:
    Border border_;
    const IntegerPlan& plan_;
    ConstImageView in_;
    ImageView out_;
    const simd::RowOps& ops_;
    int rowValues_ = 0, halo_ = 0;
    std::int16_t constantColumn_ = 0;
};

// u8 boxes whose sums pass 16 bits, in exact 32-bit sums: column sums from
// scratch at a tile's first row, then sliding from row to row (the row that
// enters added, the one that leaves subtracted); the row pass slides along
// the row (RowOps::boxRowU32). The result is float(S) * w rounded once, as
// on the 16-bit box path (see IntegerPlan).
class BoxSumFilter {
public:
    BoxSumFilter(const FilterSpec& spec, const IntegerPlan& plan, ConstImageView in, ImageView out, const simd::RowOps& ops)
        : border_(spec.border), plan_(plan), in_(in), out_(out), ops_(ops) {
        rowValues_ = in.width * in.channels;
        halo_ = plan.radiusX * in.channels;
    }

    struct Scratch {
        std::vector<std::int32_t> sums;  // one padded row of column sums
        std::vector<std::uint8_t> constantRow;
        std::vector<const std::uint8_t*> rows;
    };

    void filterRows(int y0, int y1, Scratch& s) const {
        const int k = static_cast<int>(plan_.column.size()), channels = in_.channels;
        s.sums.resize(static_cast<std::size_t>(rowValues_ + 2 * halo_));
        s.rows.resize(static_cast<std::size_t>(k));
        if (border_.mode == BorderMode::Constant)
            s.constantRow.assign(static_cast<std::size_t>(rowValues_), static_cast<std::uint8_t>(border_.value));
        const auto sourceRow = [&](int y) {
            const int sourceY = borderIndex(y, in_.height, border_.mode);
            return sourceY >= 0 ? in_.row<std::uint8_t>(sourceY) : s.constantRow.data();
        };
        std::int32_t* inner = s.sums.data() + halo_;
        const std::int32_t constantColumn = k * static_cast<std::int32_t>(border_.value);
        for (int y = y0; y < y1; ++y) {
            if (y == y0) {
                for (int t = 0; t < k; ++t) s.rows[static_cast<std::size_t>(t)] = sourceRow(y - plan_.radiusY + t);
                ops_.boxColumnU32(s.rows.data(), k, inner, rowValues_);
            } else {
                ops_.boxSlideU32(inner, sourceRow(y + plan_.radiusY), sourceRow(y - plan_.radiusY - 1), rowValues_);
            }
            // Border columns: the sums of the columns they copy, or of a constant column.
            const auto fillEdge = [&](int x) {
                const int sx = borderIndex(x, in_.width, border_.mode);
                for (int c = 0; c < channels; ++c) inner[x * channels + c] = sx < 0 ? constantColumn : inner[sx * channels + c];
            };
            for (int x = -plan_.radiusX; x < 0; ++x) fillEdge(x);
            for (int x = in_.width; x < in_.width + plan_.radiusX; ++x) fillEdge(x);
            ops_.boxRowU32(s.sums.data(), static_cast<int>(plan_.row.size()), channels, plan_.scale,
                           out_.row<std::uint8_t>(y), rowValues_);
        }
    }

private:
    Border border_;
    const IntegerPlan& plan_;
    ConstImageView in_;
    ImageView out_;
    const simd::RowOps& ops_;
    int rowValues_ = 0, halo_ = 0;
};

// Float boxes (one weight w, any sign) of 9 and more rows: each output's
// column sum of products w x comes from two partial sums, with no
// subtraction (van Herk / Gil-Werman): the output rows fall in blocks of K;
// at a block's first output the block's suffix sums are made once (row t
// plus the suffix from t + 1), then each output is the suffix from its first
// row plus a running prefix of the next block. Three operations a sample
// instead of K multiply-adds, every window summed from its own products, so
// NaN and infinities stay in their windows as in the reference; only the
// order of the adds differs. The row pass adds runs of 2, 4, 8 ... column
// sums, as the float passes do.
class FloatBoxFilter {
public:
    FloatBoxFilter(const FilterSpec& spec, ConstImageView in, ImageView out, const simd::RowOps& ops)
        : border_(spec.border), in_(in), out_(out), ops_(ops) {
        const Kernel& k = spec.kernels[0];
        rows_ = k.height;
        radiusY_ = k.radiusY();
        radiusX_ = k.radiusX();
        columns_ = k.width;
        weight_ = k.weights[0];
        rowValues_ = in.width * in.channels;
        halo_ = radiusX_ * in.channels;
        finish_.combine = Combine::Single;
        finish_.scale = spec.output.scale;
        finish_.offset = spec.output.offset;
        finish_.absolute = spec.output.absolute;
        finish_.outDepth = out.depth;
        // A column of the constant border: K equal products.
        for (int t = 0; t < rows_; ++t) constantColumn_ += weight_ * border_.value;
    }

    // Up to this many floats of suffix sums a thread (64 MB). Beyond L2 too
    // they beat K multiply-adds: 8K gray box 31 in 62 ms against 202 ms.
    static constexpr std::size_t kMaxSuffixValues = std::size_t{1} << 24;
    static bool applies(const FilterSpec& spec, ConstImageView in) {
        if (in.depth != Depth::F32 || spec.kernels.size() != 1 || spec.combine != Combine::Single) return false;
        const Kernel& k = spec.kernels[0];
        const float w = k.weights[0];
        return k.height >= 9 && k.width >= 2 && k.width < 256 && w != 0.0f && std::isfinite(w) &&
               std::all_of(k.weights.begin(), k.weights.end(), [&](float v) { return v == w; }) &&
               static_cast<std::size_t>(k.height) * static_cast<std::size_t>(in.width) * in.channels <= kMaxSuffixValues;
    }

    double workPerRow() const { return 8.0 * rowValues_; }

    struct Scratch {
        std::vector<float> suffix, prefix, window, runs, response, constantRow;
    };

    void filterRows(int y0, int y1, Scratch& s) const {
        const std::size_t padded = static_cast<std::size_t>(rowValues_ + 2 * halo_);
        s.suffix.resize(static_cast<std::size_t>(rows_) * rowValues_);
        s.prefix.resize(static_cast<std::size_t>(rowValues_));
        s.window.resize(padded);
        s.runs.resize(8 * padded);
        s.response.resize(static_cast<std::size_t>(rowValues_));
        if (border_.mode == BorderMode::Constant) s.constantRow.assign(static_cast<std::size_t>(rowValues_), border_.value);
        const auto sourceRow = [&](int y) {
            const int sourceY = borderIndex(y, in_.height, border_.mode);
            return sourceY >= 0 ? in_.row<float>(sourceY) : s.constantRow.data();
        };
        const auto suffix = [&](int t) { return s.suffix.data() + static_cast<std::size_t>(t) * rowValues_; };
        // Block q holds the windows of output rows qK .. qK + K - 1, counted
        // from row 0 of the image, so every tiling adds in the same order.
        const auto blockSuffix = [&](int first) {
            ops_.productAdd(suffix(rows_ - 1), sourceRow(first - radiusY_ + rows_ - 1), weight_, nullptr, rowValues_);
            for (int t = rows_ - 2; t >= 0; --t)
                ops_.productAdd(suffix(t), sourceRow(first - radiusY_ + t), weight_, suffix(t + 1), rowValues_);
        };
        // The prefix of output row y: rows blockStart + 1 + R .. y + R.
        const auto extendPrefix = [&](int y) {
            ops_.productAdd(s.prefix.data(), sourceRow(y + radiusY_), weight_, y % rows_ == 1 ? nullptr : s.prefix.data(),
                            rowValues_);
        };
        const int firstBlock = y0 - y0 % rows_;
        blockSuffix(firstBlock);
        for (int y = firstBlock + 1; y < y0; ++y) extendPrefix(y);
        float* inner = s.window.data() + halo_;
        for (int y = y0; y < y1; ++y) {
            const int o = y % rows_;
            if (o == 0) {
                if (y != firstBlock) blockSuffix(y);
                std::memcpy(inner, suffix(0), static_cast<std::size_t>(rowValues_) * sizeof(float));
            } else {
                extendPrefix(y);
                ops_.add(inner, suffix(o), s.prefix.data(), rowValues_);
            }
            // Border columns: the sums of the columns they copy, or of a constant column.
            const int channels = in_.channels;
            const auto fillEdge = [&](int x) {
                const int sx = borderIndex(x, in_.width, border_.mode);
                for (int c = 0; c < channels; ++c) inner[x * channels + c] = sx < 0 ? constantColumn_ : inner[sx * channels + c];
            };
            for (int x = -radiusX_; x < 0; ++x) fillEdge(x);
            for (int x = in_.width; x < in_.width + radiusX_; ++x) fillEdge(x);
            rowPass(s);
            ops_.finish(s.response.data(), nullptr, finish_, out_.row<std::uint8_t>(y), rowValues_);
        }
    }

private:
    // runs[b][i]: the sum of 2^b column sums from padded position i; then the
    // runs K's binary digits name, added.
    void rowPass(Scratch& s) const {
        const std::size_t padded = s.window.size();
        const int step = in_.channels, k = columns_, n = rowValues_;
        const float* runs[8] = {s.window.data()};
        int levels = 1;
        for (int width = 1; 2 * width <= k; width *= 2, ++levels) {
            float* d = s.runs.data() + static_cast<std::size_t>(levels - 1) * padded;
            ops_.add(d, runs[levels - 1], runs[levels - 1] + width * step, n + (k - 2 * width) * step);
            runs[levels] = d;
        }
        const float* sources[8];
        int count = 0, offset = 0;
        for (int b = levels - 1; b >= 0; --b)
            if (k & (1 << b)) {
                sources[count++] = runs[b] + offset * step;
                offset += 1 << b;
            }
        static const float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        ops_.weightedSumFused(sources, ones, 0, count, false, s.response.data(), n);
    }

    Border border_;
    ConstImageView in_;
    ImageView out_;
    const simd::RowOps& ops_;
    int rows_ = 0, radiusY_ = 0, radiusX_ = 0, columns_ = 0, rowValues_ = 0, halo_ = 0;
    float weight_ = 0.0f, constantColumn_ = 0.0f;
    simd::FinishParams finish_;
};

// Row tiles of `height` rows over the pool: run(y0, y1) for each, the run's
// control checked before every tile and its progress counted after each.
template <class RunTile> void runTiles(int height, double workPerRow, RunTile runTile) {
    const RowControl control;
    std::mutex progress;  // one tile's count and report at a time, so progress never goes back
    long long rowsDone = 0;
    const auto run = [&](int y0, int y1) {
        control.check();
        runTile(y0, y1);
        const std::lock_guard<std::mutex> lock(progress);
        control.rowsDone(rowsDone += y1 - y0, height);
    };
    int threads = coreCount();
    if (parallelThreadLimit() > 0) threads = std::min(threads, parallelThreadLimit());
    // Below about 2^15 multiply-adds (a 64x64 Gaussian 3) a second thread
    // measured no faster than the caller alone, even one already awake.
    if (static_cast<double>(height) * workPerRow < 32768.0) threads = 1;
    // A few tiles per thread balance uneven progress (the machine is shared);
    // at most about 2^26 multiply-adds each, so a cancelled run stops soon;
    // at least 8 rows each, so the 2 * radius rows each tile converts again
    // stay a small share.
    const double maxTileRows = std::max(1.0, std::ldexp(1.0, 26) / std::max(workPerRow, 1.0));
    const int tileRows = std::max(8, std::min((height + threads * 4 - 1) / (threads * 4),
                                              static_cast<int>(std::min(maxTileRows, 1e9))));
    const int tiles = (height + tileRows - 1) / tileRows;
    if (threads <= 1 || tiles <= 1) {
        for (int t = 0; t < tiles; ++t) run(t * tileRows, std::min(height, (t + 1) * tileRows));
        return;
    }
    std::atomic<int> nextTile{0};
    runOnPool(std::min(threads, tiles) - 1, [&] {
        try {
            for (int t = nextTile++; t < tiles; t = nextTile++) run(t * tileRows, std::min(height, (t + 1) * tileRows));
        } catch (...) {  // stop the others early; runOnPool rethrows it
            nextTile = tiles;
            throw;
        }
    });
}

Scratch& threadScratch() {
    thread_local Scratch scratch;
    return scratch;
}

}  // namespace

std::optional<double> parallelFixedPointBound(const Kernel& k) {
    const std::optional<FixedWeights> f = fixedPointWeights(k);
    if (!f) return std::nullopt;
    return f->bound;
}

int& parallelThreadLimit() {
    thread_local int limit = 0;
    return limit;
}

void runParallel(const FilterSpec& spec, ConstImageView input, ImageView output) {
    if (const std::optional<IntegerPlan> plan = planInteger(spec, input, output); plan && plan->wideBox) {
        const BoxSumFilter filter(spec, *plan, input, output, simd::activeRowOps());
        runTiles(input.height, 4.0 * input.width * input.channels, [&](int y0, int y1) {
            thread_local BoxSumFilter::Scratch scratch;
            filter.filterRows(y0, y1, scratch);
        });
        return;
    } else if (plan) {
        const IntegerFilter filter(spec, *plan, input, output, simd::activeRowOps());
        const double work = static_cast<double>(plan->column.size() + plan->row.size()) * input.width * input.channels;
        runTiles(input.height, work, [&](int y0, int y1) {
            thread_local IntegerScratch scratch;
            filter.filterRows(y0, y1, scratch);
        });
        return;
    }
    if (FloatBoxFilter::applies(spec, input)) {
        const FloatBoxFilter filter(spec, input, output, simd::activeRowOps());
        runTiles(input.height, filter.workPerRow(), [&](int y0, int y1) {
            thread_local FloatBoxFilter::Scratch scratch;
            filter.filterRows(y0, y1, scratch);
        });
        return;
    }
    const TiledFilter filter(spec, input, output, simd::activeRowOps());
    runTiles(input.height, filter.workPerRow(), [&](int y0, int y1) { filter.filterRows(y0, y1, threadScratch()); });
}

}  // namespace fs::cpu::detail
