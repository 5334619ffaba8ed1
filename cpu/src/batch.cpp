// CPU batch: a job per (image, spec) pair, taken from a shared counter by one
// thread per core. Each job caps the parallel mode at threads / jobs so the
// cores are shared out once, not oversubscribed.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "cpu_modes.hpp"
#include "fs/cpu/batch.hpp"

namespace fs::cpu {
namespace {

class CpuBatchRunner final : public BatchRunner {
public:
    using BatchRunner::BatchRunner;

    std::vector<RunResult> runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                    const std::string& mode) override {
        return runGrid({input}, specs, mode);
    }

    std::vector<RunResult> runGrid(const std::vector<ConstImageView>& inputs, const std::vector<FilterSpec>& specs,
                                   const std::string& mode) override {
        const std::size_t jobs = inputs.size() * specs.size();
        std::vector<RunResult> results(jobs);
        if (jobs == 0) return results;
        const int cores = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
        const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(cores), jobs));
        const int threadsPerJob = std::max(1, cores / static_cast<int>(std::min<std::size_t>(jobs, 64)));
        std::atomic<std::size_t> next{0};
        std::size_t done = 0;
        std::mutex progress;  // one count and report at a time, so progress never goes back
        // The caller's control reaches every worker: each job checks it
        // first, and a cancelled batch leaves the jobs not started as cancelled.
        RunControl* const control = currentRunControl();
        auto worker = [&] {
            const ScopedRunControl scoped(control);
            detail::parallelThreadLimit() = threadsPerJob;
            for (std::size_t j = next++; j < jobs; j = next++) {
                // The base class's pair has the never-throw guard and the cancel check.
                results[j] = runPair(inputs[j / specs.size()], specs[j % specs.size()], mode);
                const std::lock_guard<std::mutex> lock(progress);
                ++done;
                if (control && !control->cancelled()) control->setProgress(static_cast<double>(done) / static_cast<double>(jobs));
            }
            detail::parallelThreadLimit() = 0;
        };
        std::vector<std::thread> pool;
        for (int i = 1; i < workers; ++i) {
            try {
                pool.emplace_back(worker);
            } catch (const std::system_error&) {
                break;  // fewer threads is slower, not wrong
            }
        }
        worker();
        for (std::thread& t : pool) t.join();
        return results;
    }
};

}  // namespace

std::unique_ptr<BatchRunner> makeCpuBatchRunner(Backend& backend) { return std::make_unique<CpuBatchRunner>(backend); }

}  // namespace fs::cpu
