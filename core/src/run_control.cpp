#include "fs/run_control.hpp"

namespace fs {

namespace {
thread_local RunControl* t_control = nullptr;
}

RunControl* currentRunControl() noexcept { return t_control; }

ScopedRunControl::ScopedRunControl(RunControl* control) noexcept : previous_(t_control) { t_control = control; }

ScopedRunControl::~ScopedRunControl() { t_control = previous_; }

}  // namespace fs
