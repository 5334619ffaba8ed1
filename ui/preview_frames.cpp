#include "preview_frames.hpp"

#include <cstdio>

namespace fs::ui {

void PreviewFrameMeter::filled(const TimingRecord& run, double fillMs) {
    pending_ = run;
    pendingFillMs_ = fillMs;
}

std::optional<TimingRecord> PreviewFrameMeter::shown(double textureMs, double drawMs, Clock::time_point now) {
    if (!pending_) return std::nullopt;
    TimingRecord frame = *pending_;
    pending_.reset();
    frame.displayMs = frame.displayMs.value_or(0.0) + textureMs + drawMs;  // the run may have copied into the texture
    frame.totalMs = pendingFillMs_ + drawMs;  // the fill already holds the texture copy
    shownAt_.push_back(now);
    while (!shownAt_.empty() && now - shownAt_.front() > std::chrono::seconds(1)) shownAt_.pop_front();
    return frame;
}

int PreviewFrameMeter::framesPerSecond(Clock::time_point now) const {
    int count = 0;
    for (const Clock::time_point t : shownAt_)
        if (now - t <= std::chrono::seconds(1)) ++count;
    return count;
}

std::string PreviewFrameMeter::describe(const TimingRecord& frame, Clock::time_point now) const {
    char text[160];
    std::snprintf(text, sizeof text, "live %d fps, frame %.2f ms (kernel %.2f, map %.2f, texture+draw %.2f)",
                  framesPerSecond(now), frame.totalMs.value_or(0.0), frame.kernelMs.value_or(0.0), frame.mapMs.value_or(0.0),
                  frame.displayMs.value_or(0.0));
    return text;
}

void PreviewFrameMeter::reset() {
    pending_.reset();
    shownAt_.clear();
}

}  // namespace fs::ui
