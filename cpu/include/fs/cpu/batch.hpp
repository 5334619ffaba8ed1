#pragma once
#include <memory>

#include "fs/batch.hpp"

namespace fs::cpu {

// Spreads the (image, spec) jobs of a batch over every core, each job on one
// thread (the cpu backend's parallel mode then keeps its tiles on that
// thread), so many small images keep all cores busy. Results equal
// backend.run() called one by one. `backend` must allow calls from several
// threads at once, as the cpu backend does.
std::unique_ptr<BatchRunner> makeCpuBatchRunner(Backend& backend);

}  // namespace fs::cpu
