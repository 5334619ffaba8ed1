// The CUDA batch runner. Each input is uploaded once; in mode "auto" one
// launch computes every spec (blockIdx.z picks the spec from a kernel array),
// in other modes each spec gets that mode's own launch on the same upload.
#include <chrono>
#include <mutex>

#include "device_common.cuh"
#include "device_image.hpp"
#include "fs/gpu/batch.hpp"

namespace fs::gpu {
namespace batch {
namespace {

// One spec of a fused launch: its output mapping, border, weights and output.
struct BatchFilter {
    KernelMath math;
    BorderMode border = BorderMode::Reflect101;
    float borderValue = 0.0f;
    int weightOffset = 0;  // into the concatenated weights, kernelCount * kw * kh of them
    unsigned char* dst = nullptr;
    std::size_t dstPitch = 0;
};

// One thread per output pixel of spec blockIdx.z; taps summed in kernel
// row-major order like every other mode. Neighbouring specs read the same
// input, so after the first spec the taps come from L2.
template <class T, int C>
__global__ void batchKernel(KernelGeom base, const BatchFilter* filters, const float* weights) {
    const BatchFilter f = filters[blockIdx.z];
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= base.width) return;
    KernelGeom g = base;
    g.border = f.border;
    g.borderValue = f.borderValue;
    g.dst = f.dst;
    g.dstPitch = f.dstPitch;
    const int kw = f.math.kw, kh = f.math.kh, rx = kw / 2, ry = kh / 2;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < base.imageHeight; y += gridDim.y * blockDim.y) {
        Px<C> acc[kMaxKernels] = {splat<C>(0.0f), splat<C>(0.0f)};
        for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx) {
                const Px<C> v = loadPixel<T, C>(g, x + kx - rx, y + ky - ry);
                const int tap = ky * kw + kx;
                madd(acc[0], __ldg(weights + f.weightOffset + tap), v);
                if (f.math.kernelCount > 1) madd(acc[1], __ldg(weights + f.weightOffset + kw * kh + tap), v);
            }
        storePixel<T, C>(g, f.math, x, y, acc[0], acc[1]);
    }
}

template <class T> struct DeviceArray {
    T* ptr = nullptr;
    ~DeviceArray() {
        if (ptr) cudaFree(ptr);
    }
    cudaError_t upload(const std::vector<T>& v, cudaStream_t s) {
        cudaError_t err = cudaMalloc(&ptr, sizeof(T) * std::max<std::size_t>(v.size(), 1));
        if (err != cudaSuccess) return err;
        return cudaMemcpyAsync(ptr, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice, s);
    }
};

using Clock = std::chrono::steady_clock;

float elapsed(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0f;
}

struct Events {
    cudaEvent_t e[4] = {};
    Events() {
        for (cudaEvent_t& x : e) cudaEventCreate(&x);
    }
    ~Events() {
        for (cudaEvent_t& x : e)
            if (x) cudaEventDestroy(x);
    }
};

class CudaBatchRunner final : public BatchRunner {
public:
    using BatchRunner::BatchRunner;

    std::vector<RunResult> runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                    const std::string& mode) override {
        std::vector<RunResult> results(specs.size());
        if (specs.empty()) return results;
        if (!backend().available()) return BatchRunner::runSpecs(input, specs, mode);
        std::lock_guard<std::mutex> lock(deviceMutex());
        std::string problem;
        try {
            problem = runOnDevice(input, specs, mode, results);
        } catch (const std::exception& e) {
            problem = e.what();
        }
        if (problem == kFallBack) return BatchRunner::runSpecs(input, specs, mode);
        if (!problem.empty())
            for (RunResult& r : results)
                if (r.ok() && r.output.empty()) r.error = problem;
        return results;
    }

private:
    static constexpr const char* kFallBack = "fall back";

    // Fills results; returns an error for every pair not yet failed, or kFallBack.
    std::string runOnDevice(ConstImageView input, const std::vector<FilterSpec>& specs, const std::string& mode,
                            std::vector<RunResult>& results) {
        const Clock::time_point wallStart = Clock::now();
        if (std::string why = validateImage(input); !why.empty()) return why;
        // Outputs must fit beside the input, or the backend's strip pipeline does it pair by pair.
        std::size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) return cudaGetLastError(), kFallBack;
        std::size_t need = input.rowBytes() * static_cast<std::size_t>(input.height);
        for (const FilterSpec& spec : specs)
            need += depthBytes(spec.outputDepth(input.depth)) * input.channels * static_cast<std::size_t>(input.width) *
                    static_cast<std::size_t>(input.height);
        if (need > freeBytes / 10 * 8) return kFallBack;

        cudaStream_t s = nullptr;
        if (cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); err != cudaSuccess)
            return cudaProblem("creating a stream", err);
        struct StreamGuard {
            cudaStream_t s;
            ~StreamGuard() { cudaStreamDestroy(s); }
        } guard{s};
        Events ev;
        DeviceImage in;
        cudaEventRecord(ev.e[0], s);
        if (cudaError_t err = in.upload(input, s); err != cudaSuccess) return cudaProblem("uploading", err);
        cudaEventRecord(ev.e[1], s);

        std::vector<DeviceImage> outs(specs.size());
        std::vector<bool> valid(specs.size(), false);
        if (mode == "auto") {
            if (std::string why = launchFused(in, specs, outs, valid, results, s); !why.empty()) return why;
        } else {
            for (std::size_t j = 0; j < specs.size(); ++j) {
                if (std::string why = validateSpec(specs[j]); !why.empty()) {
                    results[j].error = why;
                    continue;
                }
                if (std::string why = convolveOnDevice(specs[j], in, mode, outs[j], s); !why.empty()) {
                    results[j].error = why;
                    if (why.rfind("unknown CUDA mode", 0) != 0 && why.rfind("mode ", 0) != 0) return why;  // device trouble
                    continue;
                }
                valid[j] = true;
            }
        }
        cudaEventRecord(ev.e[2], s);
        if (cudaError_t err = cudaStreamSynchronize(s); err != cudaSuccess) return cudaProblem("filtering", err);
        const double uploadMs = elapsed(ev.e[0], ev.e[1]), kernelMs = elapsed(ev.e[1], ev.e[2]);

        for (std::size_t j = 0; j < specs.size(); ++j) {
            if (!valid[j]) continue;
            cudaEventRecord(ev.e[2], s);
            if (cudaError_t err = outs[j].download(results[j].output, s); err != cudaSuccess)
                return cudaProblem("downloading", err);
            cudaEventRecord(ev.e[3], s);
            if (cudaError_t err = cudaStreamSynchronize(s); err != cudaSuccess) return cudaProblem("downloading", err);
            TimingRecord& t = results[j].timing;
            t.backend = "cuda";
            t.mode = mode;
            t.uploadMs = uploadMs;
            t.kernelMs = kernelMs;
            t.downloadMs = elapsed(ev.e[2], ev.e[3]);
        }
        const double totalMs = std::chrono::duration<double, std::milli>(Clock::now() - wallStart).count();
        for (std::size_t j = 0; j < specs.size(); ++j)
            if (valid[j]) results[j].timing.totalMs = totalMs;
        return {};
    }

    std::string launchFused(const DeviceImage& in, const std::vector<FilterSpec>& specs, std::vector<DeviceImage>& outs,
                            std::vector<bool>& valid, std::vector<RunResult>& results, cudaStream_t s) {
        std::vector<BatchFilter> filters;
        std::vector<float> weights;
        for (std::size_t j = 0; j < specs.size(); ++j) {
            PreparedFilter f;
            if (std::string why = prepareFilter(specs[j], in.depth, in.channels, f); !why.empty()) {
                results[j].error = why;
                continue;
            }
            if (cudaError_t err = outs[j].allocate(in.width, in.height, in.channels, specs[j].outputDepth(in.depth));
                err != cudaSuccess)
                return cudaProblem("allocating outputs", err);
            BatchFilter b;
            b.math = f.math;
            b.border = specs[j].border.mode;
            b.borderValue = specs[j].border.value;
            b.weightOffset = static_cast<int>(weights.size());
            b.dst = outs[j].data();
            b.dstPitch = outs[j].pitch();
            weights.insert(weights.end(), f.weights.begin(), f.weights.end());
            filters.push_back(b);
            valid[j] = true;
        }
        if (filters.empty()) return {};
        DeviceArray<BatchFilter> deviceFilters;
        DeviceArray<float> deviceWeights;
        cudaError_t err = deviceFilters.upload(filters, s);
        if (err == cudaSuccess) err = deviceWeights.upload(weights, s);
        if (err != cudaSuccess) return cudaProblem("uploading the kernel array", err);
        KernelGeom g;
        g.src = in.data();
        g.srcPitch = in.pitch();
        g.width = in.width;
        g.imageHeight = in.height;
        g.srcRows = in.height;
        g.outRows = in.height;
        const dim3 block(32, 8);
        const dim3 grid(ceilDiv(in.width, 32), std::min<unsigned>(ceilDiv(in.height, 8), 65535u),
                        static_cast<unsigned>(filters.size()));
        if (filters.size() > 65535) return "more than 65535 kernels in one batch";
        dispatchPixel(in.depth, in.channels, [&](auto t, auto c) {
            batchKernel<decltype(t), decltype(c)::value><<<grid, block, 0, s>>>(g, deviceFilters.ptr, deviceWeights.ptr);
        });
        if ((err = cudaGetLastError()) != cudaSuccess) return cudaProblem("batch kernel launch", err);
        // The kernel array must outlive the launch.
        if ((err = cudaStreamSynchronize(s)) != cudaSuccess) return cudaProblem("batch kernel", err);
        return {};
    }
};

}  // namespace
}  // namespace batch

std::unique_ptr<BatchRunner> makeCudaBatchRunner(Backend& cudaBackend) {
    return std::make_unique<batch::CudaBatchRunner>(cudaBackend);
}

}  // namespace fs::gpu
