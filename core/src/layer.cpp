#include "fs/layer.hpp"

#include <algorithm>

namespace fs {

int KernelBank::maxRadiusX() const {
    int r = 0;
    for (const Kernel& k : kernels) r = std::max(r, k.radiusX());
    return r;
}

int KernelBank::maxRadiusY() const {
    int r = 0;
    for (const Kernel& k : kernels) r = std::max(r, k.radiusY());
    return r;
}

std::string validateBank(const KernelBank& bank) {
    if (bank.inputs < 1 || bank.inputs > 1024) return "a bank needs 1 to 1024 inputs, got " + std::to_string(bank.inputs);
    if (bank.outputs < 1 || bank.outputs > 1024)
        return "a bank needs 1 to 1024 outputs, got " + std::to_string(bank.outputs);
    const std::size_t want = static_cast<std::size_t>(bank.inputs) * static_cast<std::size_t>(bank.outputs);
    if (bank.kernels.size() != want)
        return "a " + std::to_string(bank.inputs) + " x " + std::to_string(bank.outputs) + " bank needs " +
               std::to_string(want) + " kernels, got " + std::to_string(bank.kernels.size());
    for (int n = 0; n < bank.inputs; ++n)
        for (int m = 0; m < bank.outputs; ++m)
            if (std::string why = validateKernel(bank.at(n, m)); !why.empty())
                return "kernel (" + std::to_string(n) + ", " + std::to_string(m) + "): " + why;
    FilterSpec spec;  // the border and mapping checks of a single filter
    spec.kernels = {Kernel(1, 1, {1.0f})};
    spec.border = bank.border;
    spec.output = bank.output;
    return validateSpec(spec);
}

std::string validateLayer(const KernelBank& bank, const std::vector<ConstImageView>& inputs) {
    if (std::string why = validateBank(bank); !why.empty()) return why;
    if (inputs.size() != static_cast<std::size_t>(bank.inputs))
        return "the bank takes " + std::to_string(bank.inputs) + " input image(s), got " + std::to_string(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (std::string why = validateImage(inputs[i]); !why.empty()) return "input " + std::to_string(i) + ": " + why;
        const ConstImageView& a = inputs[0];
        const ConstImageView& b = inputs[i];
        if (b.width != a.width || b.height != a.height || b.channels != a.channels || b.depth != a.depth)
            return "input " + std::to_string(i) + " is " + std::to_string(b.width) + "x" + std::to_string(b.height) + " " +
                   std::to_string(b.channels) + " ch " + depthName(b.depth) + ", input 0 is " + std::to_string(a.width) +
                   "x" + std::to_string(a.height) + " " + std::to_string(a.channels) + " ch " + depthName(a.depth) +
                   "; a layer's inputs must match";
    }
    return {};
}

FilterSpec bankTermSpec(const KernelBank& bank, int n, int m) {
    FilterSpec spec;
    spec.name = bank.name + " (" + std::to_string(n) + ", " + std::to_string(m) + ")";
    spec.kernels = {bank.at(n, m)};
    spec.border = bank.border;
    spec.output.floatOutput = true;  // raw sums; the bank's mapping comes once after adding them
    spec.filterAlpha = true;
    return spec;
}

}  // namespace fs
