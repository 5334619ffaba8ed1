#pragma once
// The live preview's frames: a frame starts when the filter has written the
// view's pixel buffer (kernel, interop map/unmap) and ends when the view has
// copied that buffer into its texture and drawn it, each to glFinish. The
// meter joins the two halves into one timing record and counts the frames
// shown in the last second.
#include <chrono>
#include <deque>
#include <optional>
#include <string>

#include "fs/timing.hpp"

namespace fs::ui {

class PreviewFrameMeter {
public:
    using Clock = std::chrono::steady_clock;

    // The filter wrote the pixel buffer and the view copied it into its texture: `run` has the kernel and
    // map/unmap times, `fillMs` the wall clock of both.
    void filled(const TimingRecord& run, double fillMs);
    // The view drew that buffer. The whole frame, or nothing when no fill is waiting
    // (a repaint without a new result is not a frame).
    std::optional<TimingRecord> shown(double textureMs, double drawMs, Clock::time_point now = Clock::now());
    // Frames shown in the second up to `now`.
    int framesPerSecond(Clock::time_point now = Clock::now()) const;
    void reset();
    // "live 60 fps, frame 1.20 ms (kernel 0.40, map 0.10, texture+draw 0.70)" for `frame`, a frame shown().
    std::string describe(const TimingRecord& frame, Clock::time_point now = Clock::now()) const;

private:
    std::optional<TimingRecord> pending_;
    double pendingFillMs_ = 0.0;
    std::deque<Clock::time_point> shownAt_;
};

}  // namespace fs::ui
