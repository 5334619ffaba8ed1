#include "layers.hpp"

#include <chrono>
#include <exception>

#include "fs/cpu/layer.hpp"
#include "fs/pixel_math.hpp"
#include "fs/run_control.hpp"
#include "cuda_library.hpp"
#if defined(FS_HAVE_CUDA)
#include "fs/gpu/module.hpp"
#endif

namespace fs {
namespace {

template <class Out> void finishInto(const std::vector<float>& sums, const OutputMapping& m, Image& out) {
    const std::size_t samples = static_cast<std::size_t>(out.width()) * out.channels();
    for (int y = 0; y < out.height(); ++y) {
        Out* dst = out.view().row<Out>(y);
        const float* sum = sums.data() + samples * y;
        for (std::size_t i = 0; i < samples; ++i)
            dst[i] = PixelTraits<Out>::store(applyMapping(sum[i], m.scale, m.offset, m.absolute));
    }
}

void addTiming(std::optional<double>& to, const std::optional<double>& part) {
    if (part) to = to.value_or(0.0) + *part;
}

}  // namespace

std::unique_ptr<LayerRunner> makeLayerRunner(const std::string& backendId) {
    if (backendId == "cpu") return cpu::makeCpuLayerRunner(true);
#if defined(FS_HAVE_CUDA)
    if (backendId == "cuda") {
        gpu::Module* cuda = cudaModule();  // chosen backends are available: the engine is loaded
        return cuda ? cuda->makeLayerRunner() : nullptr;
    }
#endif
    return nullptr;
}

LayerResult runLayerOneByOne(Backend& backend, const std::string& mode, const KernelBank& bank,
                             const std::vector<ConstImageView>& inputs) {
    LayerResult result;
    result.timing.backend = backend.id();
    result.timing.mode = mode + " one by one";
    if (std::string why = validateLayer(bank, inputs); !why.empty()) {
        result.error = why;
        return result;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        const ConstImageView& first = inputs[0];
        const std::size_t samples = static_cast<std::size_t>(first.width) * first.channels * first.height;
        const Depth outDepth = bank.output.floatOutput ? Depth::F32 : first.depth;
        for (int m = 0; m < bank.outputs; ++m) {
            std::vector<float> sums(samples, 0.0f);
            for (int n = 0; n < bank.inputs; ++n) {
                const RunResult r = backend.run(bankTermSpec(bank, n, m), inputs[n], mode);
                if (!r.ok()) {
                    result.error = r.error == kRunCancelled
                                       ? r.error
                                       : "input " + std::to_string(n) + ", output " + std::to_string(m) + ": " + r.error;
                    result.outputs.clear();
                    return result;
                }
                addTiming(result.timing.uploadMs, r.timing.uploadMs);
                addTiming(result.timing.kernelMs, r.timing.kernelMs);
                addTiming(result.timing.downloadMs, r.timing.downloadMs);
                const ConstImageView term = r.output.cview();
                const std::size_t rowSamples = static_cast<std::size_t>(first.width) * first.channels;
                for (int y = 0; y < first.height; ++y) {
                    const float* src = term.row<float>(y);
                    float* sum = sums.data() + rowSamples * y;
                    for (std::size_t i = 0; i < rowSamples; ++i) sum[i] += src[i];
                }
            }
            Image out(first.width, first.height, first.channels, outDepth);
            switch (outDepth) {
            case Depth::U8: finishInto<std::uint8_t>(sums, bank.output, out); break;
            case Depth::U16: finishInto<std::uint16_t>(sums, bank.output, out); break;
            case Depth::F32: finishInto<float>(sums, bank.output, out); break;
            }
            result.outputs.push_back(std::move(out));
        }
    } catch (const std::exception& e) {
        result.outputs.clear();
        result.error = std::string("one-by-one layer: ") + e.what();
    }
    result.timing.totalMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace fs
