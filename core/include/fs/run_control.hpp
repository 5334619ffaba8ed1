#pragma once
#include <atomic>
#include <stdexcept>

namespace fs {

// The stop switch and progress of one run, shared between whoever started it
// (a window, a CLI's signal handler) and the threads doing the work. Backends
// look at it between units of work (a CPU row tile, a GPU piece, a batch
// item), so a cancelled run returns within one unit.
class RunControl {
public:
    RunControl() = default;
    // A part of a larger run (one pair of a batch): cancelled with its parent,
    // its own progress kept apart from the parent's.
    explicit RunControl(const RunControl* parent) noexcept : parent_(parent) {}
    RunControl(const RunControl&) = delete;
    RunControl& operator=(const RunControl&) = delete;

    void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
    bool cancelled() const noexcept {
        return cancelled_.load(std::memory_order_relaxed) || (parent_ && parent_->cancelled());
    }
    // Fraction of the run done, 0..1; a run that cannot tell leaves it at 0.
    void setProgress(double fraction) noexcept { progress_.store(fraction, std::memory_order_relaxed); }
    double progress() const noexcept { return progress_.load(std::memory_order_relaxed); }

private:
    const RunControl* parent_ = nullptr;
    std::atomic<bool> cancelled_{false};
    std::atomic<double> progress_{0.0};
};

// The text RunResult::error carries for a run stopped by RunControl::cancel(),
// so callers tell a cancelled run from a failed one.
inline constexpr const char* kRunCancelled = "cancelled";

// The control of the run this thread is doing, or nullptr when none was
// installed. Backends read it once at the start of run() and hand it to their
// worker threads, so no backend signature carries it.
RunControl* currentRunControl() noexcept;

// Installs a control for the calling thread for the lifetime of this object.
class ScopedRunControl {
public:
    explicit ScopedRunControl(RunControl* control) noexcept;
    ~ScopedRunControl();
    ScopedRunControl(const ScopedRunControl&) = delete;
    ScopedRunControl& operator=(const ScopedRunControl&) = delete;

private:
    RunControl* previous_;
};

// True when the current run was asked to stop.
inline bool runCancelled() noexcept {
    const RunControl* control = currentRunControl();
    return control && control->cancelled();
}

}  // namespace fs
