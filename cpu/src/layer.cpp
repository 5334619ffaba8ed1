#include "fs/cpu/layer.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu_common.hpp"
#include "cpu_modes.hpp"
#include "parallel_pool.hpp"

namespace fs::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// Output row y of every output: rows of each input, border-padded once per
// (input, kernel row), then every output's taps from them.
template <class In, class Out>
void layerRow(const KernelBank& bank, const std::vector<ConstImageView>& inputs, std::vector<Image>& outputs, int y,
              std::vector<float>& padded, std::vector<float>& sums) {
    const ConstImageView& first = inputs[0];
    const int channels = first.channels, width = first.width;
    const int padX = bank.maxRadiusX(), padY = bank.maxRadiusY();
    const std::size_t paddedRow = static_cast<std::size_t>(width + 2 * padX) * channels;
    const int rows = 2 * padY + 1;
    const std::size_t samples = static_cast<std::size_t>(width) * channels;
    sums.assign(samples * bank.outputs, 0.0f);
    padded.resize(paddedRow * rows);
    for (int n = 0; n < bank.inputs; ++n) {
        for (int r = 0; r < rows; ++r) {
            const int sourceY = borderIndex(y + r - padY, first.height, bank.border.mode);
            detail::loadPaddedRow<In>(inputs[n], sourceY, bank.border, padX, padded.data() + paddedRow * r);
        }
        for (int m = 0; m < bank.outputs; ++m) {
            const Kernel& k = bank.at(n, m);
            float* sum = sums.data() + samples * m;
            for (int ky = 0; ky < k.height; ++ky) {
                const float* row = padded.data() + paddedRow * (padY - k.radiusY() + ky);
                for (int kx = 0; kx < k.width; ++kx) {
                    const float w = k.at(kx, ky);
                    const float* src = row + static_cast<std::size_t>(padX - k.radiusX() + kx) * channels;
                    for (std::size_t i = 0; i < samples; ++i) sum[i] += w * src[i];
                }
            }
        }
    }
    for (int m = 0; m < bank.outputs; ++m) {
        Out* dst = outputs[m].view().row<Out>(y);
        const float* sum = sums.data() + samples * m;
        for (std::size_t i = 0; i < samples; ++i) dst[i] = detail::finishSample<Out>(sum[i], bank.output);
    }
}

class CpuLayerRunner final : public LayerRunner {
public:
    explicit CpuLayerRunner(bool parallel) : parallel_(parallel) {}

    LayerResult run(const KernelBank& bank, const std::vector<ConstImageView>& inputs) override {
        LayerResult result;
        result.timing.backend = "cpu";
        result.timing.mode = parallel_ ? "parallel layer" : "reference layer";
        if (std::string why = validateLayer(bank, inputs); !why.empty()) {
            result.error = why;
            return result;
        }
        const Clock::time_point start = Clock::now();
        try {
            const ConstImageView& first = inputs[0];
            const Depth outDepth = bank.output.floatOutput ? Depth::F32 : first.depth;
            for (int m = 0; m < bank.outputs; ++m) result.outputs.emplace_back(first.width, first.height, first.channels, outDepth);
            std::atomic<int> nextRow{0};
            std::mutex progress;  // one row's count and report at a time, so progress never goes back
            long long rowsDone = 0;
            const detail::RowControl control;  // the workers' view of the caller's control
            auto work = [&] {
                std::vector<float> padded, sums;
                detail::withSampleTypes(first.depth, outDepth, [&](auto inSample, auto outSample) {
                    using In = decltype(inSample);
                    using Out = decltype(outSample);
                    try {
                        for (int y = nextRow++; y < first.height; y = nextRow++) {
                            control.check();
                            layerRow<In, Out>(bank, inputs, result.outputs, y, padded, sums);
                            const std::lock_guard<std::mutex> lock(progress);
                            control.rowsDone(++rowsDone, first.height);
                        }
                    } catch (...) {  // stop the others early; runOnPool rethrows it
                        nextRow = first.height;
                        throw;
                    }
                });
            };
            const int helpers = parallel_ ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - 1 : 0;
            if (helpers > 0) detail::runOnPool(helpers, work);
            else work();
        } catch (const detail::RunCancelled&) {
            result.outputs.clear();
            result.error = kRunCancelled;
        } catch (const std::exception& e) {
            result.outputs.clear();
            result.error = std::string("cpu layer: ") + e.what();
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        result.timing.kernelMs = ms;  // as the CPU backend reports its runs
        result.timing.totalMs = ms;
        return result;
    }

private:
    bool parallel_;
};

}  // namespace

std::unique_ptr<LayerRunner> makeCpuLayerRunner(bool parallel) { return std::make_unique<CpuLayerRunner>(parallel); }

}  // namespace fs::cpu
