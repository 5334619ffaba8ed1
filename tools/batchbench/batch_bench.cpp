// filterstudio-batch-bench: the 1:N:N / N:M:M batch measurement (issue 6).
// 100 random 1024x1024 images x 8 kernels (sizes from 3 to 15, separable and
// not), run three ways on the same inputs: the CUDA batch runner, CUDA one
// Backend::run per pair, and the CPU batch runner (parallel mode). Prints
// images/s (median of repeats after a warm-up), where each way's time goes,
// and the PCIe floor measured in the same run; checks the batched results
// against the one-at-a-time ones. No Qt, no OpenCV.
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fs/batch.hpp"
#include "fs/cpu/batch.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/gpu/batch.hpp"
#include "fs/gpu/cuda_backend.hpp"
#include "fs/presets.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F> double timeMs(F&& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Largest difference between two u8 images of one shape; 256 when the shapes differ.
int maxAbsDiff(const fs::Image& a, const fs::Image& b) {
    if (a.sizeBytes() != b.sizeBytes()) return 256;
    int worst = 0;
    for (std::size_t i = 0; i < a.sizeBytes(); ++i) worst = std::max(worst, std::abs(int(a.data()[i]) - int(b.data()[i])));
    return worst;
}

bool allOk(const std::vector<fs::RunResult>& results, const char* what) {
    for (const fs::RunResult& r : results)
        if (!r.ok()) {
            std::fprintf(stderr, "%s: %s\n", what, r.error.c_str());
            return false;
        }
    return true;
}

#define CHECK_CUDA(call)                                                                        \
    do {                                                                                        \
        const cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                                \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                    \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

struct Pcie {
    double h2d = 0, d2h = 0, h2dBoth = 0, d2hBoth = 0;  // GB/s
};

// Pinned copies of 64 MB, median of 5 after a warm-up; then both directions at once.
Pcie measurePcie() {
    const std::size_t bytes = 64u << 20;
    void *hostA = nullptr, *hostB = nullptr, *devA = nullptr, *devB = nullptr;
    CHECK_CUDA(cudaHostAlloc(&hostA, bytes, cudaHostAllocDefault));
    CHECK_CUDA(cudaHostAlloc(&hostB, bytes, cudaHostAllocDefault));
    CHECK_CUDA(cudaMalloc(&devA, bytes));
    CHECK_CUDA(cudaMalloc(&devB, bytes));
    std::memset(hostA, 0x5A, bytes);
    std::memset(hostB, 0xA5, bytes);
    cudaStream_t up, down;
    CHECK_CUDA(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    cudaEvent_t a, b, c, d;
    for (cudaEvent_t* e : {&a, &b, &c, &d}) CHECK_CUDA(cudaEventCreate(e));
    auto oneWay = [&](void* dst, const void* src, cudaMemcpyKind kind) {
        std::vector<double> ms;
        for (int r = 0; r < 6; ++r) {
            cudaEventRecord(a, up);
            cudaMemcpyAsync(dst, src, bytes, kind, up);
            cudaEventRecord(b, up);
            CHECK_CUDA(cudaEventSynchronize(b));
            float t = 0;
            cudaEventElapsedTime(&t, a, b);
            if (r > 0) ms.push_back(t);
        }
        return bytes / (median(ms) * 1e6);
    };
    Pcie p;
    p.h2d = oneWay(devA, hostA, cudaMemcpyHostToDevice);
    p.d2h = oneWay(hostB, devB, cudaMemcpyDeviceToHost);
    std::vector<double> upMs, downMs;
    for (int r = 0; r < 6; ++r) {
        CHECK_CUDA(cudaDeviceSynchronize());
        cudaEventRecord(a, up);
        cudaEventRecord(c, down);
        cudaMemcpyAsync(devA, hostA, bytes, cudaMemcpyHostToDevice, up);
        cudaMemcpyAsync(hostB, devB, bytes, cudaMemcpyDeviceToHost, down);
        cudaEventRecord(b, up);
        cudaEventRecord(d, down);
        CHECK_CUDA(cudaDeviceSynchronize());
        float t1 = 0, t2 = 0;
        cudaEventElapsedTime(&t1, a, b);
        cudaEventElapsedTime(&t2, c, d);
        if (r > 0) upMs.push_back(t1), downMs.push_back(t2);
    }
    p.h2dBoth = bytes / (median(upMs) * 1e6);
    p.d2hBoth = bytes / (median(downMs) * 1e6);
    for (cudaEvent_t e : {a, b, c, d}) cudaEventDestroy(e);
    cudaStreamDestroy(up);
    cudaStreamDestroy(down);
    cudaFreeHost(hostA);
    cudaFreeHost(hostB);
    cudaFree(devA);
    cudaFree(devB);
    return p;
}

// What one result costs the host, per MB, on one thread: where the output of
// a run can land. Each probe writes `count` freshly allocated 1 MB buffers
// (as fs::Image allocates them: new[], untouched pages).
void probeHost(std::size_t imageBytes) {
    const int count = 64;
    void *pinned = nullptr, *dev = nullptr;
    CHECK_CUDA(cudaHostAlloc(&pinned, imageBytes, cudaHostAllocDefault));
    CHECK_CUDA(cudaMalloc(&dev, imageBytes));
    std::memset(pinned, 7, imageBytes);
    CHECK_CUDA(cudaMemset(dev, 9, imageBytes));
    auto fresh = [&] {
        std::vector<std::unique_ptr<std::uint8_t[]>> v;
        for (int i = 0; i < count; ++i) v.emplace_back(new std::uint8_t[imageBytes]);
        return v;
    };
    const double totalBytes = count * static_cast<double>(imageBytes);
    auto rate = [&](double ms) { return totalBytes / (ms * 1e6); };
    std::vector<std::unique_ptr<std::uint8_t[]>> bufs = fresh();
    const double faultMs = timeMs([&] {
        for (auto& b : bufs) std::memcpy(b.get(), pinned, imageBytes);
    });
    const double warmMs = timeMs([&] {
        for (auto& b : bufs) std::memcpy(b.get(), pinned, imageBytes);
    });
    const double freeMs = timeMs([&] { bufs.clear(); });
    bufs = fresh();
    bool populated = true;
    const double populateMs = timeMs([&] {
        const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        for (auto& b : bufs) {
            const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(b.get()) + page - 1) / page * page;
            const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(b.get()) + imageBytes) / page * page;
            if (end > begin && madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) != 0)
                populated = false;
            std::memcpy(b.get(), pinned, imageBytes);
        }
    });
    bufs = fresh();
    const double pageableMs = timeMs([&] {
        for (auto& b : bufs) CHECK_CUDA(cudaMemcpy(b.get(), dev, imageBytes, cudaMemcpyDeviceToHost));
    });
    bufs = fresh();
    const double registerMs = timeMs([&] {
        for (auto& b : bufs) {
            CHECK_CUDA(cudaHostRegister(b.get(), imageBytes, cudaHostRegisterDefault));
            CHECK_CUDA(cudaMemcpy(b.get(), dev, imageBytes, cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaHostUnregister(b.get()));
        }
    });
    bufs.clear();
    std::printf("host probes (one thread, %d fresh %.1f MB result buffers each):\n", count,
                static_cast<double>(imageBytes) / 1048576.0);
    std::printf("  memcpy pinned -> fresh buffer (page faults)  %6.1f GB/s   (%.3f ms per MB)\n", rate(faultMs),
                faultMs / (totalBytes / 1048576.0));
    std::printf("  memcpy pinned -> same buffers again          %6.1f GB/s\n", rate(warmMs));
    std::printf("  free of those buffers                        %6.3f ms each\n", freeMs / count);
    std::printf("  madvise(POPULATE_WRITE) + memcpy, fresh      %6.1f GB/s%s\n", rate(populateMs),
                populated ? "" : "  (madvise refused: this kernel lacks MADV_POPULATE_WRITE)");
    std::printf("  cudaMemcpy D2H into fresh pageable buffer    %6.1f GB/s\n", rate(pageableMs));
    std::printf("  cudaHostRegister + D2H + unregister, fresh   %6.1f GB/s\n", rate(registerMs));
    cudaFreeHost(pinned);
    cudaFree(dev);
}

// Per-image averages of a way's TimingRecords (fields a result lacks count as 0).
struct Stages {
    double upload = 0, kernel = 0, download = 0, host = 0, total = 0;
};
Stages perImage(const std::vector<fs::RunResult>& results, std::size_t specs, bool sharedPerImage) {
    Stages s;
    const std::size_t images = results.size() / specs;
    for (std::size_t k = 0; k < results.size(); ++k) {
        if (sharedPerImage && k % specs != 0) continue;  // one record stands for its image
        const fs::TimingRecord& t = results[k].timing;
        s.upload += t.uploadMs.value_or(0);
        s.kernel += t.kernelMs.value_or(0);
        s.download += t.downloadMs.value_or(0);
        s.host += t.hostPrepMs.value_or(0);
        s.total += t.totalMs.value_or(0);
    }
    for (double* v : {&s.upload, &s.kernel, &s.download, &s.host, &s.total}) *v /= static_cast<double>(images);
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    int images = 100, size = 1024, repeats = 5, channels = 1;
    bool probes = true, sweep = true;
    fs::gpu::CudaBatchOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--images" && i + 1 < argc) images = std::max(1, std::atoi(argv[++i]));
        else if (a == "--size" && i + 1 < argc) size = std::max(1, std::atoi(argv[++i]));
        else if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (a == "--channels" && i + 1 < argc) channels = std::atoi(argv[++i]);
        else if (a == "--no-probes") probes = false;
        else if (a == "--no-sweep") sweep = false;
        else if (a == "--host-threads" && i + 1 < argc) options.hostThreads = std::max(0, std::atoi(argv[++i]));
        else if (a == "--no-prefault") options.prefault = false;
        else {
            std::printf("usage: filterstudio-batch-bench [--images N] [--size S] [--channels 1|3|4] [--repeats R] "
                        "[--no-probes] [--no-sweep] [--host-threads N] [--no-prefault]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    if (channels != 1 && channels != 3 && channels != 4) {
        std::fprintf(stderr, "--channels must be 1, 3 or 4\n");
        return 2;
    }
    const char* presets[] = {"sobel-x", "sobel-y", "laplacian-8", "gaussian:5:1.1", "box:7", "sharpen", "log:9:1.4", "gaussian:15:3"};
    std::vector<fs::FilterSpec> specs;
    for (const char* p : presets) {
        fs::FilterSpec s;
        std::string why;
        if (!fs::makePreset(p, s, &why)) {
            std::fprintf(stderr, "%s\n", why.c_str());
            return 1;
        }
        s.output.absolute = true;  // signed responses stay visible in u8
        specs.push_back(std::move(s));
    }

    const unsigned seed = std::random_device{}();
    std::mt19937 rng(seed);
    std::vector<fs::Image> inputs;
    std::vector<fs::ConstImageView> views;
    for (int i = 0; i < images; ++i) {
        fs::Image img(size, size, channels, fs::Depth::U8);
        for (std::size_t b = 0; b < img.sizeBytes(); ++b) img.data()[b] = static_cast<std::uint8_t>(rng());
        inputs.push_back(std::move(img));
    }
    for (const fs::Image& img : inputs) views.push_back(img.view());
    const std::size_t imageBytes = inputs.front().sizeBytes();
    const double inBytes = static_cast<double>(imageBytes), outBytes = static_cast<double>(specs.size()) * inBytes;
    std::printf("batch: %d images %dx%d x%d ch u8 (pageable, as fs::Image) x %zu kernels (", images, size, size, channels,
                specs.size());
    for (const char* p : presets) std::printf("%s%s", p, p == presets[7] ? "" : " ");
    std::printf("), |.| to u8, seed %u, median of %d after a warm-up; %u host cores\n", seed, repeats,
                std::thread::hardware_concurrency());

    auto cuda = fs::gpu::makeCudaBackend();
    auto cpu = fs::cpu::makeCpuBackend();
    double floorMs = 0;
    Pcie pcie;
    if (cuda->available()) {
        pcie = measurePcie();
        const double inMs = inBytes / (pcie.h2d * 1e6), outMs = outBytes / (pcie.d2h * 1e6);
        floorMs = std::max(inMs, outMs);
        std::printf("%s; pinned PCIe (64 MB, median of 5): H2D %.1f GB/s, D2H %.1f GB/s; both at once %.1f / %.1f GB/s\n",
                    cuda->displayName().c_str(), pcie.h2d, pcie.d2h, pcie.h2dBoth, pcie.d2hBoth);
        std::printf("PCIe floor per image: %.2f MB up (%.3f ms) and %.2f MB down (%.3f ms), overlapped: %.3f ms = %.0f "
                    "images/s\n",
                    inBytes / 1048576.0, inMs, outBytes / 1048576.0, outMs, floorMs, 1000.0 / floorMs);
        if (probes) probeHost(imageBytes);
    } else {
        std::printf("cuda: %s\n", cuda->unavailableReason().c_str());
    }

    struct Way {
        const char* name;
        std::unique_ptr<fs::BatchRunner> runner;
        const char* mode;
        int images;  // the CPU is slow: time it on fewer images
        bool sharedTiming;  // one TimingRecord per image (the CUDA batch runner)
    };
    std::vector<Way> ways;
    if (cuda->available()) {
        ways.push_back({"cuda batched (auto)", fs::gpu::makeCudaBatchRunner(*cuda, options), "auto", images, true});
        ways.push_back({"cuda one at a time (auto)", fs::makeLoopBatchRunner(*cuda), "auto", images, false});
    }
    ways.push_back({"cpu batched (parallel)", fs::cpu::makeCpuBatchRunner(*cpu), "parallel", std::min(images, 8), false});

    std::vector<fs::RunResult> firstCuda;
    double batchedRate = 0, loopRate = 0;
    Stages loopStages;
    for (Way& w : ways) {
        const std::vector<fs::ConstImageView> subset(views.begin(), views.begin() + w.images);
        std::vector<fs::RunResult> results = w.runner->runGrid(subset, specs, w.mode);  // warm-up
        if (!allOk(results, w.name)) return 1;
        if (std::strncmp(w.name, "cuda", 4) == 0) {
            if (firstCuda.empty()) firstCuda = std::move(results);
            else
                for (std::size_t k = 0; k < results.size(); ++k) {
                    // Integer kernels must agree exactly; others are summed in another order
                    // by the fused kernel than by the mode auto picks, so +-1 after rounding.
                    const int allowed = specs[k % specs.size()].kernels[0].integerWeights() ? 0 : 1;
                    const int diff = maxAbsDiff(results[k].output, firstCuda[k].output);
                    if (diff > allowed) {
                        std::fprintf(stderr, "batched and one-at-a-time CUDA results differ by %d at pair %zu\n", diff, k);
                        return 1;
                    }
                }
        }
        results.clear();
        // Timed: the run only; freeing its results (the caller's business) is timed apart.
        std::vector<double> ms, freeMs;
        std::vector<fs::RunResult> last;
        for (int r = 0; r < repeats; ++r) {
            last.clear();
            ms.push_back(timeMs([&] { last = w.runner->runGrid(subset, specs, w.mode); }));
            if (r + 1 < repeats) freeMs.push_back(timeMs([&] { last.clear(); }));
        }
        const double wallMs = median(ms) / w.images;
        const double rate = 1000.0 / wallMs;
        const double mpix = rate * static_cast<double>(specs.size()) * size * static_cast<double>(size) / 1e6;
        std::printf("  %-27s %8.1f images/s  %8.1f output MPix/s  (median %.1f ms for %d images", w.name, rate, mpix,
                    median(ms), w.images);
        if (floorMs > 0 && std::strncmp(w.name, "cuda", 4) == 0) std::printf("; %.1fx the PCIe floor", wallMs / floorMs);
        std::printf(")\n");
        if (!freeMs.empty()) std::printf("      freeing the results afterwards: %.2f ms per image (not counted)\n", median(freeMs) / w.images);
        const Stages st = perImage(last, specs.size(), w.sharedTiming);
        if (w.sharedTiming) {
            std::printf("      per image: wall %.3f ms | GPU events (4 slots overlap): upload %.3f, kernel %.3f, download %.3f "
                        "ms | host copies (input staging + outputs out of pinned): %.3f ms | image span %.3f ms\n",
                        wallMs, st.upload, st.kernel, st.download, st.host, st.total);
            batchedRate = rate;
        } else if (std::strncmp(w.name, "cuda", 4) == 0) {
            std::printf("      per image (8 runs): wall %.3f ms | upload %.3f, kernel %.3f, download %.3f ms | host "
                        "staging %.3f ms | sum of run totals %.3f ms\n",
                        wallMs, st.upload, st.kernel, st.download, st.host, st.total);
            loopRate = rate;
            loopStages = st;
        }
    }
    if (cuda->available() && !firstCuda.empty()) {
        // runGridInto: outputs the caller owns and reuses, so no fresh pages to fault in;
        // pageable (copied out of pinned staging) or pinned (downloaded straight into them).
        auto runner = fs::gpu::makeCudaBatchRunner(*cuda, options);
        const std::size_t pairs = views.size() * specs.size();
        std::vector<fs::Image> reused;
        for (std::size_t k = 0; k < pairs; ++k) reused.emplace_back(size, size, channels, fs::Depth::U8);
        void* pinnedBlock = nullptr;
        CHECK_CUDA(cudaHostAlloc(&pinnedBlock, pairs * imageBytes, cudaHostAllocDefault));
        std::vector<fs::ImageView> pageableViews, pinnedViews;
        for (std::size_t k = 0; k < pairs; ++k) {
            pageableViews.push_back(reused[k].view());
            fs::ImageView v = reused[k].view();
            v.data = static_cast<std::uint8_t*>(pinnedBlock) + k * imageBytes;
            pinnedViews.push_back(v);
        }
        for (const bool pinnedOut : {false, true}) {
            const std::vector<fs::ImageView>& targets = pinnedOut ? pinnedViews : pageableViews;
            const char* name = pinnedOut ? "cuda batched into pinned" : "cuda batched into reused";
            std::vector<fs::RunResult> last = runner->runGridInto(views, specs, "auto", targets);  // warm-up
            if (!allOk(last, name)) return 1;
            for (std::size_t k = 0; k < pairs; ++k)
                if (std::memcmp(targets[k].data, firstCuda[k].output.data(), imageBytes) != 0) {
                    std::fprintf(stderr, "%s: pair %zu differs from runGrid's result\n", name, k);
                    return 1;
                }
            std::vector<double> ms;
            for (int r = 0; r < repeats; ++r)
                ms.push_back(timeMs([&] { last = runner->runGridInto(views, specs, "auto", targets); }));
            const double wallMs = median(ms) / images;
            const Stages st = perImage(last, specs.size(), true);
            std::printf("  %-27s %8.1f images/s  %8.1f output MPix/s  (median %.1f ms for %d images; %.1fx the PCIe floor)\n",
                        name, 1000.0 / wallMs, 1000.0 / wallMs * static_cast<double>(specs.size()) * size * size / 1e6,
                        median(ms), images, wallMs / floorMs);
            std::printf("      per image: wall %.3f ms | GPU events: upload %.3f, kernel %.3f, download %.3f ms | host "
                        "copies %.3f ms | image span %.3f ms\n",
                        wallMs, st.upload, st.kernel, st.download, st.host, st.total);
        }
        cudaFreeHost(pinnedBlock);
    }
    if (cuda->available()) {
        // The fused kernel alone: one image, nothing overlapping it.
        auto runner = fs::gpu::makeCudaBatchRunner(*cuda);
        std::vector<double> kernelMs, uploadMs, downloadMs;
        for (int r = 0; r < 7; ++r) {
            const std::vector<fs::RunResult> one = runner->runSpecs(views[r % views.size()], specs, "auto");
            if (!allOk(one, "single image")) return 1;
            if (r > 0) {
                kernelMs.push_back(one[0].timing.kernelMs.value_or(0));
                uploadMs.push_back(one[0].timing.uploadMs.value_or(0));
                downloadMs.push_back(one[0].timing.downloadMs.value_or(0));
            }
        }
        std::printf("  one image alone through the batch runner (median of 6): upload %.3f ms, fused kernel (8 filters) "
                    "%.3f ms, download %.3f ms; one at a time's 8 kernels: %.3f ms\n",
                    median(uploadMs), median(kernelMs), median(downloadMs), loopStages.kernel);
    }
    if (cuda->available() && sweep) {
        // Where the batched time goes on the host: threads copying out of pinned memory, and bulk prefaulting.
        std::printf("  batched, host copy threads x prefault (median of 3, %d images):\n", images);
        for (const int threads : {1, 4, 8, 16})
            for (const bool prefault : {false, true}) {
                auto runner = fs::gpu::makeCudaBatchRunner(*cuda, {threads, prefault});
                std::vector<fs::RunResult> last = runner->runGrid(views, specs, "auto");
                if (!allOk(last, "sweep")) return 1;
                std::vector<double> ms;
                for (int r = 0; r < 3; ++r) {
                    last.clear();
                    ms.push_back(timeMs([&] { last = runner->runGrid(views, specs, "auto"); }));
                }
                const Stages st = perImage(last, specs.size(), true);
                std::printf("    %2d threads, prefault %-3s %8.1f images/s  host copies %.3f ms/image  (%.1fx the PCIe floor)\n",
                            threads, prefault ? "on" : "off", images / (median(ms) / 1000.0), st.host,
                            median(ms) / images / floorMs);
            }
    }
    if (batchedRate > 0 && loopRate > 0) {
        const double ratio = batchedRate / loopRate;
        std::printf("  batched / one-at-a-time on CUDA: %.2fx (target >= 3x: %s)\n", ratio, ratio >= 3 ? "MET" : "MISSED");
        // If both were PCIe-bound: one at a time moves the input up 8 times.
        const double runs = static_cast<double>(specs.size());
        const double loopSerial = runs * (inBytes / pcie.h2d + inBytes / pcie.d2h) / 1e6;
        const double loopOverlap = std::max(runs * inBytes / pcie.h2d, outBytes / pcie.d2h) / 1e6;
        std::printf("  if both were PCIe-bound: one at a time %.3f ms/image (up, then down, per run) or %.3f ms "
                    "(overlapped) vs batched %.3f ms: ratio bound %.2fx or %.2fx\n",
                    loopSerial, loopOverlap, floorMs, loopSerial / floorMs, loopOverlap / floorMs);
    }
    return 0;
}
