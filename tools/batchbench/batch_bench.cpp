// filterstudio-batch-bench: the 1:N:N / N:M:M batch measurement (issue 6).
// 100 random 1024x1024 images x 8 kernels (sizes from 3 to 15, separable and
// not), run three ways on the same inputs: the CUDA batch runner (each input
// uploaded once, one launch over the kernel array), CUDA one run per pair,
// and the CPU batch runner (parallel mode). Prints images/s (median of
// repeats after a warm-up) and checks the batched results equal the
// one-at-a-time ones. No Qt, no OpenCV.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fs/batch.hpp"
#include "fs/cpu/batch.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/gpu/batch.hpp"
#include "fs/gpu/cuda_backend.hpp"
#include "fs/presets.hpp"

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F> double timeMs(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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

}  // namespace

int main(int argc, char** argv) {
    int images = 100, size = 1024, repeats = 5, channels = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--images" && i + 1 < argc) images = std::max(1, std::atoi(argv[++i]));
        else if (a == "--size" && i + 1 < argc) size = std::max(1, std::atoi(argv[++i]));
        else if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (a == "--channels" && i + 1 < argc) channels = std::atoi(argv[++i]);
        else {
            std::printf("usage: filterstudio-batch-bench [--images N] [--size S] [--channels 1|3|4] [--repeats R]\n");
            return a == "--help" ? 0 : 2;
        }
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
    std::printf("batch: %d images %dx%d x%d ch u8 x %zu kernels, seed %u, median of %d after a warm-up\n", images, size,
                size, channels, specs.size(), seed, repeats);

    auto cuda = fs::gpu::makeCudaBackend();
    auto cpu = fs::cpu::makeCpuBackend();
    struct Way {
        const char* name;
        std::unique_ptr<fs::BatchRunner> runner;
        const char* mode;
        int images;  // the CPU is slow: time it on fewer images
    };
    std::vector<Way> ways;
    if (cuda->available()) {
        ways.push_back({"cuda batched (auto)", fs::gpu::makeCudaBatchRunner(*cuda), "auto", images});
        ways.push_back({"cuda one at a time (auto)", fs::makeLoopBatchRunner(*cuda), "auto", images});
    } else {
        std::printf("cuda: %s\n", cuda->unavailableReason().c_str());
    }
    ways.push_back({"cpu batched (parallel)", fs::cpu::makeCpuBatchRunner(*cpu), "parallel", std::min(images, 8)});

    std::vector<fs::RunResult> firstCuda;
    double batchedRate = 0, loopRate = 0;
    for (Way& w : ways) {
        const std::vector<fs::ConstImageView> subset(views.begin(), views.begin() + w.images);
        std::vector<fs::RunResult> results = w.runner->runGrid(subset, specs, w.mode);  // warm-up
        if (!allOk(results, w.name)) return 1;
        if (std::strncmp(w.name, "cuda", 4) == 0) {
            if (firstCuda.empty()) firstCuda = std::move(results);
            else
                for (std::size_t k = 0; k < results.size(); ++k) {
                    // Integer kernels must agree exactly; others are summed in another order
                    // by the batched kernel than by the mode auto picks, so +-1 after rounding.
                    const int allowed = specs[k % specs.size()].kernels[0].integerWeights() ? 0 : 1;
                    const int diff = maxAbsDiff(results[k].output, firstCuda[k].output);
                    if (diff > allowed) {
                        std::fprintf(stderr, "batched and one-at-a-time CUDA results differ by %d at pair %zu\n", diff, k);
                        return 1;
                    }
                }
        }
        std::vector<double> ms;
        for (int r = 0; r < repeats; ++r) ms.push_back(timeMs([&] { w.runner->runGrid(subset, specs, w.mode); }));
        const double rate = w.images / (median(ms) / 1000.0);
        const double mpix = rate * static_cast<double>(specs.size()) * size * static_cast<double>(size) / 1e6;
        std::printf("  %-28s %8.1f images/s  %9.1f output MPix/s  (median %.1f ms for %d images)\n", w.name, rate, mpix,
                    median(ms), w.images);
        if (std::strcmp(w.name, "cuda batched (auto)") == 0) batchedRate = rate;
        if (std::strcmp(w.name, "cuda one at a time (auto)") == 0) loopRate = rate;
    }
    if (batchedRate > 0 && loopRate > 0)
        std::printf("  batched / one-at-a-time on CUDA: %.2fx (target >= 3x)\n", batchedRate / loopRate);
    return 0;
}
