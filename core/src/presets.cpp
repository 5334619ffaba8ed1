#include "fs/presets.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace fs {

namespace {

std::vector<std::string> splitColon(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ':')) parts.push_back(item);
    if (!text.empty() && text.back() == ':') parts.emplace_back();
    return parts;
}

bool parseNumber(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end && *end == '\0' && std::isfinite(out);
}

bool parseOddSize(const std::string& s, int maxSize, int& out, std::string& why) {
    double v = 0;
    if (!parseNumber(s, v) || v != std::floor(v)) {
        why = "size '" + s + "' is not a whole number";
        return false;
    }
    if (v < 1 || v > maxSize || static_cast<int>(v) % 2 == 0) {
        why = "size " + s + " must be odd and within 1.." + std::to_string(maxSize);
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

}  // namespace

double gaussianSigmaFromSize(int size) { return 0.3 * ((size - 1) * 0.5 - 1.0) + 0.8; }

std::vector<float> gaussianVector(int size, double sigma) {
    // OpenCV (getGaussianKernelBitExact) uses fixed tables for sizes up to 9 when sigma is not given.
    static const float kSmall[5][9] = {
        {1.f},
        {0.25f, 0.5f, 0.25f},
        {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f},
        {0.03125f, 0.109375f, 0.21875f, 0.28125f, 0.21875f, 0.109375f, 0.03125f},
        {0.015625f, 0.05078125f, 0.1171875f, 0.19921875f, 0.234375f, 0.19921875f, 0.1171875f, 0.05078125f, 0.015625f}};
    std::vector<float> out(static_cast<std::size_t>(size));
    if (size % 2 == 1 && size <= 9 && sigma <= 0) {
        for (int i = 0; i < size; ++i) out[i] = kSmall[size / 2][i];
        return out;
    }
    const double s = sigma > 0 ? sigma : gaussianSigmaFromSize(size);
    const double scale2 = -0.5 / (s * s);
    std::vector<double> values(static_cast<std::size_t>(size));
    double sum = 0.0;
    for (int i = 0; i < size; ++i) {
        const double x = i - (size - 1) * 0.5;
        values[i] = std::exp(scale2 * x * x);
        sum += values[i];
    }
    for (int i = 0; i < size; ++i) out[i] = static_cast<float>(values[i] / sum);
    return out;
}

void sobelVectors(int size, int order, std::vector<float>& derivative, std::vector<float>& smooth) {
    // Port of OpenCV's getSobelKernels: binomial smoothing, then `order` differences.
    auto build = [size](int ord) {
        std::vector<int> k(static_cast<std::size_t>(size) + 1, 0);
        k[0] = 1;
        for (int i = 0; i < size - ord - 1; ++i) {
            int oldval = k[0];
            for (int j = 1; j <= size; ++j) {
                const int newval = k[j] + k[j - 1];
                k[j - 1] = oldval;
                oldval = newval;
            }
        }
        for (int i = 0; i < ord; ++i) {
            int oldval = -k[0];
            for (int j = 1; j <= size; ++j) {
                const int newval = k[j - 1] - k[j];
                k[j - 1] = oldval;
                oldval = newval;
            }
        }
        return std::vector<float>(k.begin(), k.begin() + size);
    };
    if (size == 1) {  // cv::Sobel treats ksize 1 as 3x1 / 1x3 with no smoothing
        derivative = order == 1 ? std::vector<float>{-1, 0, 1} : std::vector<float>{1, -2, 1};
        smooth = {1};
        return;
    }
    derivative = build(order);
    smooth = build(0);
}

Kernel identityKernel() { return Kernel(1, 1, {1.0f}); }

Kernel boxKernel(int size) {
    return Kernel(size, size, std::vector<float>(static_cast<std::size_t>(size) * size, 1.0f / static_cast<float>(size * size)));
}

Kernel gaussianKernel(int size, double sigma) {
    const std::vector<float> g = gaussianVector(size, sigma);
    return Kernel::outer(g, g);
}

Kernel sobelKernel(int size, bool dx) {
    std::vector<float> d, s;
    sobelVectors(size, 1, d, s);
    return dx ? Kernel::outer(s, d) : Kernel::outer(d, s);
}

Kernel scharrKernel(bool dx) {
    const std::vector<float> d{-1, 0, 1}, s{3, 10, 3};
    return dx ? Kernel::outer(s, d) : Kernel::outer(d, s);
}

Kernel prewittKernel(bool dx) {
    const std::vector<float> d{-1, 0, 1}, s{1, 1, 1};
    return dx ? Kernel::outer(s, d) : Kernel::outer(d, s);
}

Kernel laplacian4Kernel() { return Kernel(3, 3, {0, 1, 0, 1, -4, 1, 0, 1, 0}); }
Kernel laplacian8Kernel() { return Kernel(3, 3, {1, 1, 1, 1, -8, 1, 1, 1, 1}); }
Kernel sharpenKernel() { return Kernel(3, 3, {0, -1, 0, -1, 5, -1, 0, -1, 0}); }
Kernel embossKernel() { return Kernel(3, 3, {-2, -1, 0, -1, 1, 1, 0, 1, 2}); }

Kernel logKernel(int size, double sigma) {
    // Laplacian of a unit-sum Gaussian, then shifted to sum exactly zero so flat areas give 0.
    const int r = size / 2;
    const double s2 = sigma * sigma;
    std::vector<double> g(static_cast<std::size_t>(size) * size);
    double gsum = 0.0;
    for (int y = -r; y <= r; ++y)
        for (int x = -r; x <= r; ++x) gsum += g[(y + r) * size + (x + r)] = std::exp(-(x * x + y * y) / (2 * s2));
    std::vector<double> v(g.size());
    double mean = 0.0;
    for (int y = -r; y <= r; ++y)
        for (int x = -r; x <= r; ++x) {
            const std::size_t i = static_cast<std::size_t>((y + r) * size + (x + r));
            v[i] = g[i] / gsum * ((x * x + y * y) - 2 * s2) / (s2 * s2);
            mean += v[i];
        }
    mean /= static_cast<double>(v.size());
    std::vector<float> w(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) w[i] = static_cast<float>(v[i] - mean);
    return Kernel(size, size, std::move(w));
}

Kernel unsharpKernel(int size, double sigma, double amount) {
    Kernel k = gaussianKernel(size, sigma);
    for (float& w : k.weights) w = static_cast<float>(-amount * w);
    k.at(size / 2, size / 2) += static_cast<float>(1.0 + amount);
    return k;
}

std::vector<PresetInfo> listPresets() {
    return {
        {"identity", "1x1 pass-through"},
        {"box:N", "N x N mean (default 3)"},
        {"gaussian:SIZE:SIGMA", "Gaussian blur; SIGMA 0 derives it from SIZE as OpenCV does (default 5:0)"},
        {"sobel-x[:SIZE]", "horizontal gradient, SIZE 3, 5 or 7 (signed: use --abs or --offset)"},
        {"sobel-y[:SIZE]", "vertical gradient, SIZE 3, 5 or 7"},
        {"sobel-mag[:SIZE]", "gradient magnitude sqrt(gx^2 + gy^2), two kernels fused"},
        {"scharr-x", "3x3 Scharr horizontal gradient"},
        {"scharr-y", "3x3 Scharr vertical gradient"},
        {"prewitt-x", "3x3 Prewitt horizontal gradient"},
        {"prewitt-y", "3x3 Prewitt vertical gradient"},
        {"laplacian-4", "3x3 Laplacian, 4 neighbours"},
        {"laplacian-8", "3x3 Laplacian, 8 neighbours"},
        {"log:SIZE:SIGMA", "Laplacian of Gaussian, zero sum (default 9:1.4)"},
        {"sharpen", "3x3 sharpen"},
        {"emboss", "3x3 emboss"},
        {"unsharp:SIZE:SIGMA:AMOUNT", "unsharp mask (1+a)*I - a*Gaussian (default 5:0:1)"},
    };
}

bool makePreset(const std::string& text, FilterSpec& out, std::string* error) {
    std::string why;
    auto fail = [&](const std::string& reason) {
        if (error) *error = "kernel '" + text + "': " + reason;
        return false;
    };
    const std::vector<std::string> p = splitColon(text);
    if (p.empty()) return fail("empty kernel name");
    const std::string& name = p[0];
    const std::size_t nargs = p.size() - 1;
    auto argsAtMost = [&](std::size_t n) { return nargs <= n; };
    auto sizeArg = [&](std::size_t i, int def, int& v) {
        if (nargs <= i) { v = def; return true; }
        return parseOddSize(p[i + 1], kMaxKernelSize, v, why);
    };
    auto numArg = [&](std::size_t i, double def, double& v) {
        if (nargs <= i) { v = def; return true; }
        if (!parseNumber(p[i + 1], v)) { why = "'" + p[i + 1] + "' is not a number"; return false; }
        return true;
    };

    FilterSpec spec;
    spec.name = text;
    int size = 0;
    double sigma = 0, amount = 0;
    if (name == "identity" && argsAtMost(0)) {
        spec.kernels = {identityKernel()};
    } else if (name == "box" && argsAtMost(1)) {
        if (!sizeArg(0, 3, size)) return fail(why);
        spec.kernels = {boxKernel(size)};
    } else if (name == "gaussian" && argsAtMost(2)) {
        if (!sizeArg(0, 5, size) || !numArg(1, 0.0, sigma)) return fail(why);
        if (sigma < 0) return fail("sigma must be 0 (derive from size) or positive");
        spec.kernels = {gaussianKernel(size, sigma)};
    } else if ((name == "sobel-x" || name == "sobel-y" || name == "sobel-mag") && argsAtMost(1)) {
        if (!sizeArg(0, 3, size)) return fail(why);
        if (size != 3 && size != 5 && size != 7) return fail("Sobel size must be 3, 5 or 7");
        if (name == "sobel-mag") {
            spec.kernels = {sobelKernel(size, true), sobelKernel(size, false)};
            spec.combine = Combine::Magnitude;
        } else {
            spec.kernels = {sobelKernel(size, name == "sobel-x")};
        }
    } else if ((name == "scharr-x" || name == "scharr-y") && argsAtMost(0)) {
        spec.kernels = {scharrKernel(name == "scharr-x")};
    } else if ((name == "prewitt-x" || name == "prewitt-y") && argsAtMost(0)) {
        spec.kernels = {prewittKernel(name == "prewitt-x")};
    } else if (name == "laplacian-4" && argsAtMost(0)) {
        spec.kernels = {laplacian4Kernel()};
    } else if (name == "laplacian-8" && argsAtMost(0)) {
        spec.kernels = {laplacian8Kernel()};
    } else if (name == "log" && argsAtMost(2)) {
        if (!sizeArg(0, 9, size) || !numArg(1, 1.4, sigma)) return fail(why);
        if (sigma <= 0) return fail("LoG sigma must be positive");
        spec.kernels = {logKernel(size, sigma)};
    } else if (name == "sharpen" && argsAtMost(0)) {
        spec.kernels = {sharpenKernel()};
    } else if (name == "emboss" && argsAtMost(0)) {
        spec.kernels = {embossKernel()};
    } else if (name == "unsharp" && argsAtMost(3)) {
        if (!sizeArg(0, 5, size) || !numArg(1, 0.0, sigma) || !numArg(2, 1.0, amount)) return fail(why);
        if (sigma < 0) return fail("sigma must be 0 (derive from size) or positive");
        spec.kernels = {unsharpKernel(size, sigma, amount)};
    } else {
        static const char* const kNames[] = {"identity", "box", "gaussian", "sobel-x", "sobel-y", "sobel-mag",
                                             "scharr-x", "scharr-y", "prewitt-x", "prewitt-y", "laplacian-4",
                                             "laplacian-8", "log", "sharpen", "emboss", "unsharp"};
        for (const char* known : kNames)
            if (name == known) return fail("too many parameters");
        // Said in full here: the studio's users have no command line to ask.
        std::string known;
        for (const char* k : kNames) known += (known.empty() ? "" : ", ") + std::string(k);
        return fail("unknown preset; the presets are " + known);
    }
    out = std::move(spec);
    return true;
}

}  // namespace fs
