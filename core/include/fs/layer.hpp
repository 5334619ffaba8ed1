#pragma once
// N:M:M convolution, as in a convolution layer: each of M outputs is the sum
// over N inputs of input_n correlated with kernel (n, m), then the output
// mapping once. (`batch` is 1:N:N per image: every pair its own output.)
#include <memory>
#include <string>
#include <vector>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/timing.hpp"

namespace fs {

struct KernelBank {
    std::string name;
    int inputs = 0;   // N
    int outputs = 0;  // M
    std::vector<Kernel> kernels;  // kernels[n * outputs + m]: input n's contribution to output m
    Border border;                // as in kernel files; every input is read through it
    OutputMapping output;         // applied once to each sum

    const Kernel& at(int n, int m) const { return kernels[static_cast<std::size_t>(n) * outputs + m]; }
    int maxRadiusX() const;
    int maxRadiusY() const;
};

// Empty when usable, otherwise why not ("kernel (1, 2): width 4 is even").
std::string validateBank(const KernelBank& bank);
// The bank's checks, then N inputs of one width, height, channel count and depth.
std::string validateLayer(const KernelBank& bank, const std::vector<ConstImageView>& inputs);

// The FilterSpec that convolves one input for output m's kernel n, with a
// raw float result (the mapping comes after the sum): what a one-by-one run uses.
FilterSpec bankTermSpec(const KernelBank& bank, int n, int m);

struct LayerResult {
    std::vector<Image> outputs;  // M images, the inputs' size and channels, bank.output's depth rule
    TimingRecord timing;
    std::string error;
    bool ok() const { return error.empty(); }
};

// Runs a whole bank. Never throws; failures come back in LayerResult::error.
class LayerRunner {
public:
    virtual ~LayerRunner() = default;
    virtual LayerResult run(const KernelBank& bank, const std::vector<ConstImageView>& inputs) = 0;
};

// Bank files: JSON in the kernel-file conventions,
// {"format": "filterstudio-kernel-bank", "version": 1, "name": ..., "inputs": N, "outputs": M,
//  "kernels": [[k(0,0), ..., k(0,M-1)], ..., [k(N-1,0), ...]], "border": {...}, "output": {...}},
// each k a kernel object as in kernel files ({"weights": [[...]]}). Errors name the field.
constexpr int kBankFileVersion = 1;
bool parseBankJson(const std::string& text, KernelBank& out, std::string* error);
std::string bankToJson(const KernelBank& bank);
bool loadBankFile(const std::string& path, KernelBank& out, std::string* error);

}  // namespace fs
