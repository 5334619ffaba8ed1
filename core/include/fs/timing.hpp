#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fs {

// Where a run spent its time, in milliseconds. A part the run did not have
// stays empty (never 0), so charts can tell "absent" from "too fast to see".
struct TimingRecord {
    std::string backend;
    std::string mode;
    std::string launch;  // GPU launch configuration used ("32x8 / 1x4"); empty elsewhere
    std::string kernel;  // GPU kernel variant that ran, as `explain` names it; empty elsewhere
    std::optional<double> hostPrepMs;
    std::optional<double> uploadMs;
    std::optional<double> kernelMs;
    std::optional<double> layoutMs;  // planar channel layout: splitting into planes and interleaving again
    std::optional<double> downloadMs;
    std::optional<double> mapMs;  // CUDA-GL interop map + unmap
    std::optional<double> displayMs;  // live preview: pixel buffer -> texture, then the draw, to glFinish
    std::optional<double> totalMs;  // wall clock of the whole run

    std::string toString() const;  // "upload 1.234 ms, kernel 0.456 ms, ..."
};

// The time covered by the union of [begin, end) intervals: how long at least
// one of them was running. Kernels of overlapping pieces count once.
double coveredMs(std::vector<std::pair<double, double>> intervals);

}  // namespace fs
