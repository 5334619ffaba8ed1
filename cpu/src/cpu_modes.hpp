#pragma once
// Private to cpu/: how the "cpu" backend is assembled from mode functions, so
// the OpenCV mode (a separate library) can join without the backend knowing it.
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fs/backend.hpp"
#include "fs/run_control.hpp"

namespace fs::cpu::detail {

// Writes the filtered `input` into `output`, which the backend has already
// allocated with the spec's output depth and validated against the spec.
using ModeFunction = void (*)(const FilterSpec& spec, ConstImageView input, ImageView output);

struct CpuMode {
    ModeInfo info;
    ModeFunction run = nullptr;
};

void runReference(const FilterSpec& spec, ConstImageView input, ImageView output);
void runParallel(const FilterSpec& spec, ConstImageView input, ImageView output);
// When mode "parallel" runs kernel k on u8 to u8 (one kernel, no mapping, an
// integer border) with fixed-point weights: their bound in levels against
// the reference, always below 1.
std::optional<double> parallelFixedPointBound(const Kernel& k);

// Most threads runParallel may use when called from this thread; 0 means one
// per core. The batch runner lowers it so that jobs, not tiles, share the cores.
int& parallelThreadLimit();

// Thrown by a mode whose run was cancelled (fs/run_control.hpp); the backend
// returns it as RunResult::error == kRunCancelled, with no output.
struct RunCancelled : std::exception {
    const char* what() const noexcept override { return kRunCancelled; }
};

// The run's control as a mode's worker threads see it: read on the calling
// thread when the mode starts, since the installed control is per thread.
class RowControl {
public:
    RowControl() noexcept : control_(currentRunControl()) {}
    // Throws RunCancelled when the run was asked to stop.
    void check() const {
        if (control_ && control_->cancelled()) throw RunCancelled();
    }
    // `done` of `total` rows are finished: records progress and checks.
    void rowsDone(long long done, long long total) const {
        if (!control_) return;
        if (total > 0) control_->setProgress(static_cast<double>(done) / static_cast<double>(total));
        check();
    }

private:
    RunControl* control_;
};

std::vector<CpuMode> builtinModes();  // reference, parallel
std::unique_ptr<Backend> makeCpuBackendWithModes(std::vector<CpuMode> modes);

}  // namespace fs::cpu::detail
