// Mode "auto": the fastest correct mode for each filter, by dispatch.cpp's
// rules. Runs with a default launch take the autotuner's configuration for
// the chosen mode when there is one.
#include "dispatch.hpp"
#include "launch.hpp"

namespace fs::gpu {
namespace {

const ModeImpl& chooseAutoMode(const PreparedFilter& f) {
    const AutoChoice choice = chooseAuto(f);
    return choice.mode ? *choice.mode : constantMode();
}

}  // namespace

const ModeImpl& autoMode() {
    static const ModeImpl mode{
        "auto",
        "Picks the fastest correct mode for each filter by one table of rules (filterstudio-cli explain names the "
        "rule and the kernel for a filter): separable for rank-1 kernels, registers for other kernels to 7x7 and "
        "dense ones to 15x15, fft for large dense float kernels, otherwise shared; with the launch configuration "
        "the autotuner found for this GPU, filter and image size, when there is one.",
        nullptr, nullptr, nullptr, nullptr, nullptr, chooseAutoMode, /*isDefault=*/true};
    return mode;
}

}  // namespace fs::gpu
