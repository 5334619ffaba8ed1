#pragma once
// One set of worker threads for every run of mode "parallel", started on
// first use and kept, so a run costs no thread creation.
#include <functional>

namespace fs::cpu::detail {

// Runs work() on the calling thread and on up to `helpers` pool
// threads at once; returns when every call that started has returned. Work
// must share itself out (e.g. an atomic tile counter): a helper may start
// late, after the others finished, or not at all when the pool is busy with
// another run; then it is skipped rather than waited for. The first
// exception thrown by any call is rethrown here.
void runOnPool(int helpers, const std::function<void()>& work);

// The cores std::thread::hardware_concurrency() reports, clamped to 1..64 and
// read once: glibc reads a file in /sys on every call, which costs a small
// image's run several microseconds.
int coreCount();

}  // namespace fs::cpu::detail
