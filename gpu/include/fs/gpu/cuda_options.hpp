#pragma once
// Process-wide knobs of the CUDA backend, for tests and the benchmark.
#include <cstddef>

namespace fs::gpu {

// Most device memory one run may hold (input strip + output strip, both
// pipeline slots). 0 (the default) means 80% of the free memory at run time.
// Images that need more are processed in horizontal strips with halos.
void setDeviceMemoryBudget(std::size_t bytes);
std::size_t deviceMemoryBudget();

// Test hook: while on, every device buffer the pipeline, the batch runner and
// the autotuner ask for (even one they could reuse) fails as cudaMalloc does
// when the device is full, so tests can
// check that a run then ends with an "out of device memory" error, not a crash.
void setAllocationFailureForTesting(bool fail);

// Output rows per pipeline piece (upload, filter, download overlap across
// pieces). 0 (the default): images up to 8 MB in one piece, larger ones in
// pieces of at least 4 MB, at most 12 (automaticPieceCount in src/piece_run.cpp).
void setPipelineRows(int rows);

}  // namespace fs::gpu
