// fs::RunControl as the core gives it: installed per thread, nested, and
// honoured by the plain batch runner between pairs, whatever the backend does.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fs/batch.hpp"
#include "fs/run_control.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

using namespace std::chrono_literals;

TEST(RunControl, IsInstalledPerThreadAndNests) {
    EXPECT_EQ(currentRunControl(), nullptr);
    EXPECT_FALSE(runCancelled());
    RunControl outer, inner;
    {
        const ScopedRunControl a(&outer);
        EXPECT_EQ(currentRunControl(), &outer);
        {
            const ScopedRunControl b(&inner);
            EXPECT_EQ(currentRunControl(), &inner);
            inner.cancel();
            EXPECT_TRUE(runCancelled());
            RunControl* seenElsewhere = &outer;
            std::thread([&] { seenElsewhere = currentRunControl(); }).join();
            EXPECT_EQ(seenElsewhere, nullptr) << "another thread has none installed";
        }
        EXPECT_EQ(currentRunControl(), &outer);
        EXPECT_FALSE(runCancelled());
    }
    EXPECT_EQ(currentRunControl(), nullptr);
}

TEST(RunControl, APartIsCancelledWithItsParentAndKeepsItsOwnProgress) {
    RunControl parent;
    RunControl part(&parent);
    part.setProgress(0.5);
    EXPECT_EQ(parent.progress(), 0.0);
    EXPECT_FALSE(part.cancelled());
    part.cancel();
    EXPECT_FALSE(parent.cancelled()) << "a part's cancel stays in the part";
    RunControl other(&parent);
    parent.cancel();
    EXPECT_TRUE(other.cancelled());
}

// A backend that never looks at the control's switch: only the runner can stop
// the batch. It reports progress as the CPU modes do, halfway through each run.
class SlowBackend final : public Backend {
public:
    std::atomic<int> runs{0};
    std::string id() const override { return "slow"; }
    std::string displayName() const override { return "Slow"; }
    std::vector<ModeInfo> modes() const override { return {{"sleep", "sleeps", true, {}, true, true}}; }
    std::string unavailableReason() const override { return {}; }
    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string&) override {
        ++runs;
        if (RunControl* control = currentRunControl()) control->setProgress(0.5);
        std::this_thread::sleep_for(5ms);
        RunResult r;
        r.output = Image(input.width, input.height, input.channels, spec.outputDepth(input.depth));
        return r;
    }
};

TEST(RunControl, LoopBatchRunnerStopsBetweenPairs) {
    SlowBackend backend;
    const std::unique_ptr<BatchRunner> runner = makeLoopBatchRunner(backend);
    const Image a(8, 8, 1, Depth::U8), b(8, 8, 1, Depth::U8);
    const std::vector<FilterSpec> specs(100, test::presetSpec("box:3"));
    RunControl control;
    const ScopedRunControl scoped(&control);
    std::thread canceller([&] {
        std::this_thread::sleep_for(50ms);
        control.cancel();
    });
    const std::vector<RunResult> results = runner->runGrid({a.cview(), b.cview()}, specs, "sleep");
    canceller.join();
    ASSERT_EQ(results.size(), 200u);
    const int ran = backend.runs;
    EXPECT_GT(ran, 0);
    EXPECT_LT(ran, 100) << "the cancel came about ten pairs in";
    // Pairs, not a pair's rows; the pair the cancel found running is not counted.
    EXPECT_LE(control.progress(), ran / 200.0);
    EXPECT_GE(control.progress(), (ran - 1) / 200.0);
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (static_cast<int>(i) < ran) {
            EXPECT_TRUE(results[i].ok()) << i;
        } else {
            EXPECT_EQ(results[i].error, kRunCancelled) << i;
            EXPECT_EQ(results[i].timing.backend, "slow");
        }
    }
}

}  // namespace
}  // namespace fs
