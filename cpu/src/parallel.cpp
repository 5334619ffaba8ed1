// Mode "parallel": row tiles on std::thread, each tile converting its source
// rows once into border-padded float rows, then running contiguous
// multiply-add loops the compiler vectorises. Rank-1 kernels take two 1-D
// passes. The 2-D path adds in the same order as the reference, so for
// non-separable kernels it matches the reference bit for bit.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "cpu_common.hpp"
#include "cpu_modes.hpp"

namespace fs::cpu::detail {
namespace {

// dst[i] += weight * src[i]: the one loop that does nearly all the work.
inline void multiplyAdd(float* __restrict dst, const float* __restrict src, float weight, int count) {
    for (int i = 0; i < count; ++i) dst[i] += weight * src[i];
}

struct KernelPlan {
    const Kernel* kernel = nullptr;
    std::optional<Separable> separable;  // set when the two-pass path is used
};

// Per-thread buffers, reused across the tiles a thread takes.
struct Scratch {
    std::vector<float> padded;                  // source rows, border-padded, as floats
    std::vector<float> horizontal[2];           // separable: row-pass results
    std::vector<float> response[2];             // one output row per kernel
};

template <class In, class Out> class TiledFilter {
public:
    TiledFilter(const FilterSpec& spec, ConstImageView in, ImageView out) : spec_(spec), in_(in), out_(out) {
        padX_ = spec.maxRadiusX();
        padY_ = spec.maxRadiusY();
        rowValues_ = in.width * in.channels;
        paddedValues_ = (in.width + 2 * padX_) * in.channels;
        for (const Kernel& k : spec.kernels) {
            KernelPlan plan;
            plan.kernel = &k;
            // 1xN and Nx1 kernels gain nothing from splitting.
            if (k.width > 1 && k.height > 1) plan.separable = separate(k);
            plans_.push_back(std::move(plan));
        }
    }

    void filterRows(int y0, int y1, Scratch& s) const {
        const int tileRows = y1 - y0;
        const int sourceRows = tileRows + 2 * padY_;
        s.padded.resize(static_cast<std::size_t>(sourceRows) * paddedValues_);
        for (int j = 0; j < sourceRows; ++j)
            loadPaddedRow<In>(in_, borderIndex(y0 - padY_ + j, in_.height, spec_.border.mode), spec_.border, padX_,
                              paddedRow(s, j));

        for (std::size_t k = 0; k < plans_.size(); ++k) {
            s.response[k].resize(static_cast<std::size_t>(rowValues_));
            if (plans_[k].separable) rowPass(plans_[k], sourceRows, s, s.horizontal[k]);
        }
        for (int y = y0; y < y1; ++y) {
            for (std::size_t k = 0; k < plans_.size(); ++k) {
                float* response = s.response[k].data();
                std::fill(response, response + rowValues_, 0.0f);
                if (plans_[k].separable) columnPass(plans_[k], y - y0, s.horizontal[k], response);
                else correlateRow(*plans_[k].kernel, y - y0, s, response);
            }
            const float* first = s.response[0].data();
            const float* second = plans_.size() > 1 ? s.response[1].data() : first;
            Out* dst = out_.row<Out>(y);
            for (int i = 0; i < rowValues_; ++i)
                dst[i] = finishSample<Out>(combineResponses(spec_.combine, first[i], second[i]), spec_.output);
        }
    }

private:
    float* paddedRow(Scratch& s, int j) const { return s.padded.data() + static_cast<std::size_t>(j) * paddedValues_; }

    // 2-D correlation of output row `tileY` (index within the tile); same
    // summation order as the reference: kernel rows, then columns.
    void correlateRow(const Kernel& k, int tileY, Scratch& s, float* response) const {
        const int firstRow = tileY + padY_ - k.radiusY();
        const int firstColumn = padX_ - k.radiusX();
        for (int ky = 0; ky < k.height; ++ky) {
            const float* src = paddedRow(s, firstRow + ky);
            for (int kx = 0; kx < k.width; ++kx)
                multiplyAdd(response, src + static_cast<std::ptrdiff_t>(firstColumn + kx) * in_.channels, k.at(kx, ky),
                            rowValues_);
        }
    }

    // Separable first pass: every source row the tile needs, filtered along x.
    void rowPass(const KernelPlan& plan, int sourceRows, Scratch& s, std::vector<float>& horizontal) const {
        const std::vector<float>& row = plan.separable->row;
        const int firstColumn = padX_ - plan.kernel->radiusX();
        horizontal.assign(static_cast<std::size_t>(sourceRows) * rowValues_, 0.0f);
        for (int j = 0; j < sourceRows; ++j) {
            float* dst = horizontal.data() + static_cast<std::size_t>(j) * rowValues_;
            const float* src = paddedRow(s, j);
            for (std::size_t kx = 0; kx < row.size(); ++kx)
                multiplyAdd(dst, src + (firstColumn + static_cast<std::ptrdiff_t>(kx)) * in_.channels, row[kx],
                            rowValues_);
        }
    }

    // Separable second pass: one output row from the row-pass results.
    void columnPass(const KernelPlan& plan, int tileY, const std::vector<float>& horizontal, float* response) const {
        const std::vector<float>& column = plan.separable->column;
        const int firstRow = tileY + padY_ - plan.kernel->radiusY();
        for (std::size_t ky = 0; ky < column.size(); ++ky)
            multiplyAdd(response, horizontal.data() + (firstRow + ky) * static_cast<std::size_t>(rowValues_),
                        column[ky], rowValues_);
    }

    const FilterSpec& spec_;
    ConstImageView in_;
    ImageView out_;
    std::vector<KernelPlan> plans_;
    int padX_ = 0, padY_ = 0;
    int rowValues_ = 0, paddedValues_ = 0;
};

template <class In, class Out> void filterParallel(const FilterSpec& spec, ConstImageView in, ImageView out) {
    const TiledFilter<In, Out> filter(spec, in, out);
    int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
    if (parallelThreadLimit() > 0) threads = std::min(threads, parallelThreadLimit());
    // Several tiles per thread balance uneven progress. At least 16 rows each,
    // so the 2 * radius rows of overlap stay a small share of the work, and at
    // most max(64, 4 * radius), so a thread's float buffers stay a few tens of
    // MB even on 8K images.
    const int evenShare = (in.height + threads * 4 - 1) / (threads * 4);
    const int tileRows = std::max(16, std::min(evenShare, std::max(64, 4 * spec.maxRadiusY())));
    const int tiles = (in.height + tileRows - 1) / tileRows;
    std::atomic<int> nextTile{0};
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto worker = [&] {
        try {
            Scratch scratch;
            for (int t = nextTile++; t < tiles; t = nextTile++)
                filter.filterRows(t * tileRows, std::min(in.height, (t + 1) * tileRows), scratch);
        } catch (...) {  // bad_alloc in a worker must reach run(), not std::terminate
            std::lock_guard<std::mutex> lock(failureMutex);
            if (!failure) failure = std::current_exception();
            nextTile = tiles;
        }
    };
    const int helpers = std::min(threads, tiles) - 1;
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(helpers));
    for (int i = 0; i < helpers; ++i) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            break;  // fewer threads is slower, not wrong: the tiles still all get done
        }
    }
    worker();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

int& parallelThreadLimit() {
    thread_local int limit = 0;
    return limit;
}

void runParallel(const FilterSpec& spec, ConstImageView input, ImageView output) {
    withSampleTypes(input.depth, output.depth, [&](auto inSample, auto outSample) {
        filterParallel<decltype(inSample), decltype(outSample)>(spec, input, output);
    });
}

}  // namespace fs::cpu::detail
