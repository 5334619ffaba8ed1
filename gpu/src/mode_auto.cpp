// Mode "auto": the registers mode for kernels up to 7x7, the separable mode
// for larger rank-1 kernels (kw + kh work instead of kw * kh), otherwise the
// shared-memory mode: the fastest correct choice in filterstudio-bench's table
// of every mode (bench/results/). Runs with a default launch take the
// autotuner's configuration for the chosen mode when there is one.
#include <algorithm>

#include "launch.hpp"

namespace fs::gpu {
namespace {

const ModeImpl& chooseAutoMode(const PreparedFilter& f) {
    if (std::max(f.math.kw, f.math.kh) <= 7) return registersMode();
    if (f.separable && separableMode().supports(f).ok()) return separableMode();
    if (sharedMode().supports(f).ok()) return sharedMode();
    return constantMode();
}

}  // namespace

const ModeImpl& autoMode() {
    static const ModeImpl mode{
        "auto",
        "Picks the fastest correct mode for the filter: registers for kernels up to 7x7, separable for larger "
        "rank-1 kernels, otherwise shared; with the launch configuration the autotuner found for this GPU, filter "
        "and image size, when there is one.",
        nullptr, nullptr, nullptr, nullptr, nullptr, chooseAutoMode, /*isDefault=*/true};
    return mode;
}

}  // namespace fs::gpu
