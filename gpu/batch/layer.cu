// N:M:M layers on the device: all inputs in one pitched buffer (input n at
// rows n * height ...), all outputs likewise, one launch with blockIdx.z = m.
#include <chrono>
#include <vector>

#include "cuda_support.hpp"
#include "engine_core.hpp"
#include "fs/border.hpp"
#include "fs/gpu/layer.hpp"
#include "fs/pixel_math.hpp"
#include "typed_launch.hpp"

namespace fs::gpu {
namespace {

struct LayerArgs {
    const unsigned char* in = nullptr;
    std::size_t inPitch = 0;
    unsigned char* out = nullptr;
    std::size_t outPitch = 0;
    int width = 0, height = 0, channels = 1, inputs = 1, outputs = 1;
    const float* weights = nullptr;  // every kernel's weights, row-major, one after the other
    const int4* kernels = nullptr;   // per (n, m): {first weight, width, height, unused}
    BorderMode border = BorderMode::Reflect101;
    float borderValue = 0.0f, scale = 1.0f, offset = 0.0f;
    bool absolute = false;
};

template <class In, class Out> __global__ void layerKernel(LayerArgs a) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int m = blockIdx.z;
    if (x >= a.width || y >= a.height) return;
    Out* dst = reinterpret_cast<Out*>(a.out + a.outPitch * (static_cast<std::size_t>(m) * a.height + y));
    for (int c = 0; c < a.channels; ++c) {
        float sum = 0.0f;
        for (int n = 0; n < a.inputs; ++n) {  // the CPU's order: input, kernel row, kernel column
            const int4 k = a.kernels[n * a.outputs + m];
            const float* w = a.weights + k.x;
            const int rx = k.y / 2, ry = k.z / 2;
            for (int ky = 0; ky < k.z; ++ky) {
                const int sy = borderIndex(y + ky - ry, a.height, a.border);
                const In* row = sy < 0 ? nullptr
                                       : reinterpret_cast<const In*>(a.in + a.inPitch * (static_cast<std::size_t>(n) * a.height + sy));
                for (int kx = 0; kx < k.y; ++kx) {
                    const int sx = borderIndex(x + kx - rx, a.width, a.border);
                    const float v = row && sx >= 0 ? static_cast<float>(row[sx * a.channels + c]) : a.borderValue;
                    sum = __fadd_rn(sum, __fmul_rn(w[ky * k.y + kx], v));  // no fused multiply-add, as the CPU
                }
            }
        }
        dst[x * a.channels + c] = PixelTraits<Out>::store(applyMapping(sum, a.scale, a.offset, a.absolute));
    }
}

template <class In, class Out> cudaError_t launchLayer(const LayerArgs& a, cudaStream_t s) {
    const dim3 block(32, 8);
    const dim3 grid((a.width + 31) / 32, (a.height + 7) / 8, a.outputs);
    return launchKernel(layerKernel<In, Out>, grid, block, 0, s, a);
}

template <class F> cudaError_t withTypes(Depth in, Depth out, F&& f) {
    auto outer = [&](auto inSample) {
        using In = decltype(inSample);
        switch (out) {
        case Depth::U8: return f(In{}, std::uint8_t{});
        case Depth::U16: return f(In{}, std::uint16_t{});
        case Depth::F32: break;
        }
        return f(In{}, float{});
    };
    switch (in) {
    case Depth::U8: return outer(std::uint8_t{});
    case Depth::U16: return outer(std::uint16_t{});
    case Depth::F32: break;
    }
    return outer(float{});
}

struct Events {
    cudaEvent_t e[4] = {};
    cudaError_t create() {
        for (cudaEvent_t& ev : e)
            if (cudaError_t err = cudaEventCreate(&ev); err != cudaSuccess) return err;
        return cudaSuccess;
    }
    ~Events() {
        for (cudaEvent_t ev : e)
            if (ev) cudaEventDestroy(ev);
    }
    double ms(int a, int b) const {
        float t = 0.0f;
        cudaEventElapsedTime(&t, e[a], e[b]);
        return t;
    }
};

class CudaLayerRunner final : public LayerRunner {
public:
    LayerResult run(const KernelBank& bank, const std::vector<ConstImageView>& inputs) override {
        LayerResult result;
        result.timing.backend = "cuda";
        result.timing.mode = "layer";
        const auto start = std::chrono::steady_clock::now();
        try {
            result.error = runOnDevice(bank, inputs, result);
        } catch (const std::exception& e) {
            result.error = e.what();
        }
        if (!result.ok()) result.outputs.clear();
        result.timing.totalMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        return result;
    }

private:
    static std::string runOnDevice(const KernelBank& bank, const std::vector<ConstImageView>& inputs, LayerResult& result) {
        if (std::string why = validateLayer(bank, inputs); !why.empty()) return why;
        DeviceSession session;
        if (!session.problem().empty()) return session.problem();
        const cudaStream_t s = session.stream(0);
        const ConstImageView& first = inputs[0];
        const Depth outDepth = bank.output.floatOutput ? Depth::F32 : first.depth;
        const std::size_t inRow = first.rowBytes();
        const std::size_t outRow = depthBytes(outDepth) * static_cast<std::size_t>(first.channels) * first.width;
        const std::size_t height = static_cast<std::size_t>(first.height);

        std::vector<float> weights;
        std::vector<int4> table;
        for (const Kernel& k : bank.kernels) {
            table.push_back(make_int4(static_cast<int>(weights.size()), k.width, k.height, 0));
            weights.insert(weights.end(), k.weights.begin(), k.weights.end());
        }
        // Freed on every way out (the free waits for work on them to finish).
        DeviceBuffer in, out, deviceWeights, deviceTable;
        const std::size_t inPitch = alignUp(inRow, kPitchAlign), outPitch = alignUp(outRow, kPitchAlign);
        if (cudaError_t err = session.reserve(in, inPitch * height * bank.inputs); err != cudaSuccess)
            return cudaMessage("allocating the layer's inputs", err);
        if (cudaError_t err = session.reserve(out, outPitch * height * bank.outputs); err != cudaSuccess)
            return cudaMessage("allocating the layer's outputs", err);
        if (cudaError_t err = session.reserve(deviceWeights, weights.size() * sizeof(float)); err != cudaSuccess)
            return cudaMessage("allocating the weights", err);
        if (cudaError_t err = session.reserve(deviceTable, table.size() * sizeof(int4)); err != cudaSuccess)
            return cudaMessage("allocating the kernel table", err);
        Events ev;
        if (cudaError_t err = ev.create(); err != cudaSuccess) return cudaMessage("creating events", err);

        cudaEventRecord(ev.e[0], s);
        cudaError_t err = cudaMemcpyAsync(deviceWeights.get(), weights.data(), weights.size() * sizeof(float),
                                          cudaMemcpyHostToDevice, s);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(deviceTable.get(), table.data(), table.size() * sizeof(int4), cudaMemcpyHostToDevice, s);
        for (int n = 0; n < bank.inputs && err == cudaSuccess; ++n)
            err = cudaMemcpy2DAsync(in.data() + inPitch * height * n, inPitch, inputs[n].data,
                                    inputs[n].stride, inRow, height, cudaMemcpyHostToDevice, s);
        if (err != cudaSuccess) return cudaMessage("uploading the layer's inputs", err);
        cudaEventRecord(ev.e[1], s);

        LayerArgs a;
        a.in = in.data();
        a.inPitch = inPitch;
        a.out = out.data();
        a.outPitch = outPitch;
        a.width = first.width;
        a.height = first.height;
        a.channels = first.channels;
        a.inputs = bank.inputs;
        a.outputs = bank.outputs;
        a.weights = static_cast<const float*>(deviceWeights.get());
        a.kernels = static_cast<const int4*>(deviceTable.get());
        a.border = bank.border.mode;
        a.borderValue = bank.border.value;
        a.scale = bank.output.scale;
        a.offset = bank.output.offset;
        a.absolute = bank.output.absolute;
        err = withTypes(first.depth, outDepth, [&](auto inSample, auto outSample) {
            return launchLayer<decltype(inSample), decltype(outSample)>(a, s);
        });
        if (err != cudaSuccess) return cudaMessage("launching the layer kernel", err);
        cudaEventRecord(ev.e[2], s);

        for (int m = 0; m < bank.outputs; ++m) result.outputs.emplace_back(first.width, first.height, first.channels, outDepth);
        for (int m = 0; m < bank.outputs && err == cudaSuccess; ++m)
            err = cudaMemcpy2DAsync(result.outputs[m].data(), result.outputs[m].stride(),
                                    out.data() + outPitch * height * m, outPitch, outRow, height,
                                    cudaMemcpyDeviceToHost, s);
        if (err != cudaSuccess) return cudaMessage("downloading the layer's outputs", err);
        cudaEventRecord(ev.e[3], s);
        if (err = cudaStreamSynchronize(s); err != cudaSuccess) return cudaMessage("running the layer", err);
        result.timing.uploadMs = ev.ms(0, 1);
        result.timing.kernelMs = ev.ms(1, 2);
        result.timing.downloadMs = ev.ms(2, 3);
        return {};
    }
};

}  // namespace

std::unique_ptr<LayerRunner> makeCudaLayerRunner() { return std::make_unique<CudaLayerRunner>(); }

}  // namespace fs::gpu
