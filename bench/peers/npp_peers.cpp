// npp-peers: NVIDIA's NPP filters on the benchmark's cases, timed as
// filterstudio-bench times ours (CUDA events on one stream, median of the
// repeats after two warm-up launches), written as a peers CSV that
// bench/peers/peers.py --compare pairs with our CSV.
//
// Cases: 8K (7680x4320 by default) f32 gray, u8 gray, BGR u8 (3 channels)
// and RGBA8 (4), each with a Gaussian (nppiFilterGaussAdvancedBorder, the
// taps of OpenCV's getGaussianKernel with sigma 0, as our presets) and a
// dense random kernel in [-1, 1] (nppiFilterBorder for f32,
// nppiFilterBorder32f_8u for u8: float weights, rounded u8 results), odd
// sizes 3..31. NPP's border filters support only replicate borders: time
// ours with filterstudio-bench --border replicate to compare like with like.
// Images are labelled as filterstudio-bench labels them (8K, 4K, 1080p or
// WxH, then the layout). Uses the application-managed stream context (_Ctx) API.
//
// usage: npp-peers [--size WxH | --width W --height H] [--border replicate] [--repeats N]
//                  [--sizes 3,5,...] [--out npp_peers.csv]
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                                                    \
    do {                                                                                                    \
        const cudaError_t err_ = (call);                                                                    \
        if (err_ != cudaSuccess) {                                                                          \
            std::fprintf(stderr, "npp-peers: %s at %s:%d: %s\n", #call, __FILE__, __LINE__,                  \
                         cudaGetErrorString(err_));                                                         \
            std::exit(2);                                                                                   \
        }                                                                                                   \
    } while (0)

struct Options {
    int width = 7680, height = 4320, repeats = 20;
    std::vector<int> sizes{3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
    std::string out = "npp_peers.csv";
};

// As filterstudio-bench's sizeLabel.
std::string sizeLabel(int width, int height) {
    if (width == 7680 && height == 4320) return "8K";
    if (width == 3840 && height == 2160) return "4K";
    if (width == 1920 && height == 1080) return "1080p";
    return std::to_string(width) + "x" + std::to_string(height);
}

struct ImageCase {
    const char* layout;  // as filterstudio-bench names its images after the size
    int channels;
    bool isFloat;
};

struct Row {
    std::string image, filter, call;
    int mask = 0;
    double medianMs = 0, minMs = 0;
    std::string error;
};

NppStreamContext streamContext(cudaStream_t stream) {
    NppStreamContext ctx{};
    ctx.hStream = stream;
    CHECK_CUDA(cudaGetDevice(&ctx.nCudaDeviceId));
    cudaDeviceProp p{};
    CHECK_CUDA(cudaGetDeviceProperties(&p, ctx.nCudaDeviceId));
    ctx.nMultiProcessorCount = p.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
    CHECK_CUDA(cudaStreamGetFlags(stream, &ctx.nStreamFlags));
    return ctx;
}

// cv::getGaussianKernel(size, 0): sigma = 0.3 * ((size - 1) / 2 - 1) + 0.8, normalised.
std::vector<float> gaussianTaps(int size) {
    const double sigma = 0.3 * ((size - 1) * 0.5 - 1) + 0.8;
    std::vector<double> g(size);
    double sum = 0;
    for (int i = 0; i < size; ++i) sum += g[i] = std::exp(-std::pow(i - size / 2, 2) / (2 * sigma * sigma));
    std::vector<float> out(size);
    for (int i = 0; i < size; ++i) out[i] = static_cast<float>(g[i] / sum);
    return out;
}

void CUDART_CB holdFiftyMicroseconds(void*) { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

// Median and fastest milliseconds of `call` over the repeats, after two warm-up launches.
Row timeCall(const std::function<NppStatus()>& call, cudaStream_t stream, int repeats) {
    Row r;
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<double> times;
    for (int i = 0; i < repeats + 2; ++i) {
        // As filterstudio-bench: NPP's host work overlaps a held stream, the events time the device alone.
        CHECK_CUDA(cudaLaunchHostFunc(stream, holdFiftyMicroseconds, nullptr));
        CHECK_CUDA(cudaEventRecord(a, stream));
        const NppStatus status = call();
        CHECK_CUDA(cudaEventRecord(b, stream));
        CHECK_CUDA(cudaEventSynchronize(b));
        if (status < 0) {  // errors are negative, warnings positive
            r.error = "NppStatus " + std::to_string(static_cast<int>(status));
            break;
        }
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        if (i >= 2) times.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (r.error.empty()) {
        std::sort(times.begin(), times.end());
        r.medianMs = times[times.size() / 2];
        r.minMs = times.front();
    }
    return r;
}

bool parseArgs(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) return false;
        const std::string v = argv[++i];
        if (a == "--size") {
            if (std::sscanf(v.c_str(), "%dx%d", &o.width, &o.height) != 2) return false;
        } else if (a == "--border") {
            if (v != "replicate") {
                std::fprintf(stderr, "npp-peers: NPP's border filters support only replicate borders, not '%s'\n",
                             v.c_str());
                return false;
            }
        } else if (a == "--width") o.width = std::atoi(v.c_str());
        else if (a == "--height") o.height = std::atoi(v.c_str());
        else if (a == "--repeats") o.repeats = std::max(1, std::atoi(v.c_str()));
        else if (a == "--out") o.out = v;
        else if (a == "--sizes") {
            o.sizes.clear();
            for (std::size_t p = 0; p != std::string::npos;) {
                const std::size_t q = v.find(',', p);
                const int s = std::atoi(v.substr(p, q == std::string::npos ? q : q - p).c_str());
                if (s < 1 || s % 2 == 0) return false;
                o.sizes.push_back(s);
                p = q == std::string::npos ? q : q + 1;
            }
        } else {
            return false;
        }
    }
    return o.width > 0 && o.height > 0 && !o.sizes.empty();
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    if (!parseArgs(argc, argv, opt)) {
        std::fprintf(stderr,
                     "usage: npp-peers [--size WxH | --width W --height H] [--border replicate] [--repeats N]\n"
                     "                 [--sizes 3,5,...(odd)] [--out CSV]\n");
        return 1;
    }
    const NppLibraryVersion* version = nppGetLibVersion();
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const NppStreamContext ctx = streamContext(stream);
    std::printf("device: %s, NPP %d.%d.%d, %dx%d, median of %d after 2 warm-ups, border replicate\n", prop.name,
                version->major, version->minor, version->build, opt.width, opt.height, opt.repeats);

    const ImageCase images[] = {{"gray", 1, true}, {"gray8", 1, false}, {"bgr8", 3, false}, {"rgba8", 4, false}};
    const std::string sizePrefix = sizeLabel(opt.width, opt.height) + "-";
    const int w = opt.width, h = opt.height;
    const NppiSize size{w, h};
    const NppiPoint origin{0, 0};
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<Row> rows;
    const int largest = *std::max_element(opt.sizes.begin(), opt.sizes.end());
    float* taps = nullptr;
    CHECK_CUDA(cudaMalloc(&taps, sizeof(float) * largest * largest));

    for (const ImageCase& ic : images) {
        const std::size_t rowBytes = static_cast<std::size_t>(w) * ic.channels * (ic.isFloat ? sizeof(float) : 1);
        void *src = nullptr, *dst = nullptr;
        std::size_t srcPitch = 0, dstPitch = 0;
        CHECK_CUDA(cudaMallocPitch(&src, &srcPitch, rowBytes, h));
        CHECK_CUDA(cudaMallocPitch(&dst, &dstPitch, rowBytes, h));
        {
            std::vector<unsigned char> host(rowBytes * h);
            if (ic.isFloat) {
                auto* f = reinterpret_cast<float*>(host.data());
                for (std::size_t i = 0; i < host.size() / sizeof(float); ++i) f[i] = unit(rng);
            } else {
                for (unsigned char& v : host) v = static_cast<unsigned char>(rng() & 255);
            }
            CHECK_CUDA(cudaMemcpy2D(src, srcPitch, host.data(), rowBytes, rowBytes, h, cudaMemcpyHostToDevice));
        }
        const int sp = static_cast<int>(srcPitch), dp = static_cast<int>(dstPitch);
        const auto* s8 = static_cast<const Npp8u*>(src);
        auto* d8 = static_cast<Npp8u*>(dst);
        const auto* s32 = static_cast<const Npp32f*>(src);
        auto* d32 = static_cast<Npp32f*>(dst);

        for (int mask : opt.sizes) {
            // Gaussian: NPP's separable filter with our taps.
            const std::vector<float> g = gaussianTaps(mask);
            CHECK_CUDA(cudaMemcpy(taps, g.data(), sizeof(float) * mask, cudaMemcpyHostToDevice));
            std::function<NppStatus()> gauss;
            switch (ic.isFloat ? 0 : ic.channels) {
            case 0:
                gauss = [&] {
                    return nppiFilterGaussAdvancedBorder_32f_C1R_Ctx(s32, sp, size, origin, d32, dp, size, mask, taps,
                                                                     NPP_BORDER_REPLICATE, ctx);
                };
                break;
            case 1:
                gauss = [&] {
                    return nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(s8, sp, size, origin, d8, dp, size, mask, taps,
                                                                    NPP_BORDER_REPLICATE, ctx);
                };
                break;
            case 3:
                gauss = [&] {
                    return nppiFilterGaussAdvancedBorder_8u_C3R_Ctx(s8, sp, size, origin, d8, dp, size, mask, taps,
                                                                    NPP_BORDER_REPLICATE, ctx);
                };
                break;
            default:
                gauss = [&] {
                    return nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(s8, sp, size, origin, d8, dp, size, mask, taps,
                                                                    NPP_BORDER_REPLICATE, ctx);
                };
                break;
            }
            Row r = timeCall(gauss, stream, opt.repeats);
            r.image = sizePrefix + ic.layout, r.filter = "gaussian", r.mask = mask, r.call = "nppiFilterGaussAdvancedBorder";
            rows.push_back(r);

            // Dense: a random mask x mask kernel, float weights.
            std::vector<float> dense(static_cast<std::size_t>(mask) * mask);
            for (float& v : dense) v = unit(rng);
            CHECK_CUDA(cudaMemcpy(taps, dense.data(), sizeof(float) * dense.size(), cudaMemcpyHostToDevice));
            const NppiSize kernelSize{mask, mask};
            const NppiPoint anchor{mask / 2, mask / 2};
            std::function<NppStatus()> filter;
            switch (ic.isFloat ? 0 : ic.channels) {
            case 0:
                filter = [&] {
                    return nppiFilterBorder_32f_C1R_Ctx(s32, sp, size, origin, d32, dp, size, taps, kernelSize, anchor,
                                                        NPP_BORDER_REPLICATE, ctx);
                };
                break;
            case 1:
                filter = [&] {
                    return nppiFilterBorder32f_8u_C1R_Ctx(s8, sp, size, origin, d8, dp, size, taps, kernelSize, anchor,
                                                          NPP_BORDER_REPLICATE, ctx);
                };
                break;
            case 3:
                filter = [&] {
                    return nppiFilterBorder32f_8u_C3R_Ctx(s8, sp, size, origin, d8, dp, size, taps, kernelSize, anchor,
                                                          NPP_BORDER_REPLICATE, ctx);
                };
                break;
            default:
                filter = [&] {
                    return nppiFilterBorder32f_8u_C4R_Ctx(s8, sp, size, origin, d8, dp, size, taps, kernelSize, anchor,
                                                          NPP_BORDER_REPLICATE, ctx);
                };
                break;
            }
            r = timeCall(filter, stream, opt.repeats);
            r.image = sizePrefix + ic.layout, r.filter = "dense", r.mask = mask;
            r.call = ic.isFloat ? "nppiFilterBorder_32f" : "nppiFilterBorder32f_8u";
            rows.push_back(r);
            for (std::size_t i = rows.size() - 2; i < rows.size(); ++i) {
                const Row& x = rows[i];
                if (x.error.empty())
                    std::printf("%-9s %-9s %2dx%-2d %-30s %9.4f ms (min %.4f)\n", x.image.c_str(), x.filter.c_str(),
                                x.mask, x.mask, x.call.c_str(), x.medianMs, x.minMs);
                else
                    std::printf("%-9s %-9s %2dx%-2d %-30s %s\n", x.image.c_str(), x.filter.c_str(), x.mask, x.mask,
                                x.call.c_str(), x.error.c_str());
                std::fflush(stdout);
            }
        }
        CHECK_CUDA(cudaFree(src));
        CHECK_CUDA(cudaFree(dst));
    }
    CHECK_CUDA(cudaFree(taps));

    std::ofstream csv(opt.out);
    csv << "# device: " << prop.name << "; NPP " << version->major << '.' << version->minor << '.' << version->build
        << "; " << w << 'x' << h << "; border replicate; median of " << opt.repeats << " after 2 warm-ups\n";
    csv << "image,filter,mask,peer,peer_ms,min_ms,call,error\n";
    for (const Row& r : rows) {
        if (!r.error.empty()) {
            csv << r.image << ',' << r.filter << ',' << r.mask << ",npp,,," << r.call << ',' << r.error << '\n';
            continue;
        }
        char line[256];
        std::snprintf(line, sizeof line, "%s,%s,%d,npp,%.5f,%.5f,%s,\n", r.image.c_str(), r.filter.c_str(), r.mask,
                      r.medianMs, r.minMs, r.call.c_str());
        csv << line;
    }
    std::printf("npp-peers: %zu cases in %s\n", rows.size(), opt.out.c_str());
    return 0;
}
