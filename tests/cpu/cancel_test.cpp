// Cancelling CPU runs through fs::RunControl: a run cancelled from another
// thread returns soon with kRunCancelled and no output, progress rises while
// it runs, and a run nobody cancels gives the very bytes it gave before.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cpu_modes.hpp"
#include "fs/batch.hpp"
#include "fs/cpu/batch.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/layer.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/run_control.hpp"
#include "test_support.hpp"
#if defined(FS_TEST_OPENCV_MODE)
#include <opencv2/imgproc.hpp>

#include "cv_test_support.hpp"
#include "fs/cpu/opencv_backend.hpp"
#include "fs/cpu/opencv_filter.hpp"
#include "fs/io/cv_image.hpp"
#endif

namespace fs {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

FilterSpec denseSpec(int size, std::mt19937& rng) {
    FilterSpec spec;
    spec.name = "dense";
    spec.kernels = {test::randomKernel(size, size, rng)};
    return spec;
}

bool sameBytes(const Image& a, const Image& b) {
    if (a.width() != b.width() || a.height() != b.height() || a.channels() != b.channels() || a.depth() != b.depth())
        return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.cview().row<unsigned char>(y), b.cview().row<unsigned char>(y), a.cview().rowBytes()) != 0)
            return false;
    return true;
}

// Runs `work` with a RunControl installed on this thread and cancels it from
// another thread after `delay`.
template <class Result> struct Cancelled {
    Result result;
    double msAfterCancel = 0;      // from cancel() to work's return
    double progressAtCancel = -1;  // what the control said just before cancel()
    double progressAtReturn = -1;  // what it said when work returned
    bool cancelIssued = false;     // false: work returned before the delay ran out
};

// With `onProgress`, the cancel comes `delay` after the run first reports
// progress instead: mid-run however fast or slow the machine (a sanitizer
// build, a loaded CI host), where a run has several units.
template <class Result>
Cancelled<Result> runAndCancel(const std::function<Result()>& work, std::chrono::milliseconds delay = 50ms,
                               bool onProgress = false) {
    Cancelled<Result> out;
    RunControl control;
    const ScopedRunControl scoped(&control);
    std::atomic<bool> done{false};
    Clock::time_point cancelledAt;
    std::thread canceller([&] {
        if (onProgress)
            while (!done && control.progress() == 0.0) std::this_thread::sleep_for(100us);
        const Clock::time_point until = Clock::now() + delay;
        while (!done && Clock::now() < until) std::this_thread::sleep_for(1ms);
        if (done) return;
        out.progressAtCancel = control.progress();
        cancelledAt = Clock::now();
        control.cancel();
        out.cancelIssued = true;
    });
    out.result = work();
    const Clock::time_point returned = Clock::now();
    out.progressAtReturn = control.progress();
    done = true;
    canceller.join();
    if (out.cancelIssued) out.msAfterCancel = msBetween(cancelledAt, returned);
    return out;
}

// A cancelled run stops within the units of work in flight: the part of it
// done after cancel() is at most `fraction`. Counted in work, not time, so a
// slow or loaded host cannot fail it; the time bound only catches a hang.
template <class Result>
void expectStoppedSoon(const Cancelled<Result>& run, double fraction, const std::string& what = {}) {
    EXPECT_LE(run.progressAtReturn - run.progressAtCancel, fraction)
        << what << ": from " << run.progressAtCancel << " at cancel to " << run.progressAtReturn << " at return";
    EXPECT_LT(run.msAfterCancel, 10000.0) << what << ": still running 10 s after cancel";
}

// A u8 image on which `mode` runs for about `seconds` on this machine: a strip
// is timed first, so the run outlasts the cancel however fast the cores are.
Image imageTaking(Backend& backend, const std::string& mode, const FilterSpec& spec, double seconds, std::mt19937& rng) {
    constexpr int kWidth = 2048, kStripRows = 48;
    const Image strip = test::randomImage(kWidth, kStripRows, 1, Depth::U8, rng);
    const Clock::time_point start = Clock::now();
    const RunResult r = backend.run(spec, strip.cview(), mode);
    const double ms = std::max(msBetween(start, Clock::now()), 0.01);
    EXPECT_TRUE(r.ok()) << r.error;
    const int rows = static_cast<int>(std::clamp(kStripRows * seconds * 1000.0 / ms, 256.0, 32768.0));
    return test::randomImage(kWidth, rows, 1, Depth::U8, rng);
}

class CpuCancel : public ::testing::Test {
protected:
    std::unique_ptr<Backend> backend_ = cpu::makeCpuBackend();
    std::mt19937 rng_ = test::testRng();
};

TEST_F(CpuCancel, ReferenceRunStopsWithinItsRowsInFlight) {
    // 4000x3000 with a 15x15 kernel: seconds of plain loops on any machine.
    const Image input = test::randomImage(4000, 3000, 1, Depth::U8, rng_);
    const FilterSpec spec = denseSpec(15, rng_);
    const auto run = runAndCancel<RunResult>([&] { return backend_->run(spec, input.cview(), "reference"); }, 50ms, true);
    ASSERT_TRUE(run.cancelIssued) << "the reference run ended within 50 ms of its first progress";
    EXPECT_EQ(run.result.error, kRunCancelled);
    EXPECT_TRUE(run.result.output.empty());
    EXPECT_FALSE(run.result.timing.kernelMs.has_value());
    expectStoppedSoon(run, 0.02, "reference");
    EXPECT_GT(run.progressAtCancel, 0.0) << "progress rises while it runs";
    EXPECT_LT(run.progressAtCancel, 1.0);
}

TEST_F(CpuCancel, ParallelRunStopsWithinItsTilesInFlight) {
    const FilterSpec spec = denseSpec(15, rng_);
    const Image input = imageTaking(*backend_, "parallel", spec, 3.0, rng_);
    const auto run = runAndCancel<RunResult>([&] { return backend_->run(spec, input.cview(), "parallel"); }, 50ms, true);
    ASSERT_TRUE(run.cancelIssued) << "the parallel run ended within 50 ms of its first progress";
    EXPECT_EQ(run.result.error, kRunCancelled);
    EXPECT_TRUE(run.result.output.empty());
    // A tile in flight per thread, and the mode cuts four tiles a thread: a quarter of the run, and one tile more.
    expectStoppedSoon(run, 0.4, "parallel");
    EXPECT_LT(run.progressAtCancel, 1.0);
}

TEST_F(CpuCancel, ParallelOnOneThreadStopsToo) {
    const FilterSpec spec = denseSpec(15, rng_);
    cpu::detail::parallelThreadLimit() = 1;
    const Image input = imageTaking(*backend_, "parallel", spec, 3.0, rng_);
    const auto run = runAndCancel<RunResult>([&] { return backend_->run(spec, input.cview(), "parallel"); }, 50ms, true);
    cpu::detail::parallelThreadLimit() = 0;
    ASSERT_TRUE(run.cancelIssued);
    EXPECT_EQ(run.result.error, kRunCancelled);
    expectStoppedSoon(run, 0.4, "parallel on one thread");
}

TEST_F(CpuCancel, ProgressRisesToOne) {
    const FilterSpec spec = denseSpec(9, rng_);
    for (const char* mode : {"reference", "parallel"}) {
        const Image input = mode == std::string("parallel") ? imageTaking(*backend_, mode, spec, 0.4, rng_)
                                                             : test::randomImage(1200, 400, 1, Depth::U8, rng_);
        RunControl control;
        std::vector<double> seen;
        std::atomic<bool> done{false};
        std::thread watcher([&] {
            while (!done) {
                seen.push_back(control.progress());
                std::this_thread::sleep_for(2ms);
            }
        });
        RunResult r;
        {
            const ScopedRunControl scoped(&control);
            r = backend_->run(spec, input.cview(), mode);
        }
        done = true;
        watcher.join();
        ASSERT_TRUE(r.ok()) << mode << ": " << r.error;
        EXPECT_EQ(control.progress(), 1.0) << mode;
        int between = 0;
        for (std::size_t i = 0; i < seen.size(); ++i) {
            if (i > 0) {
                EXPECT_GE(seen[i], seen[i - 1]) << mode << ": progress went back";
            }
            between += seen[i] > 0.0 && seen[i] < 1.0;
        }
        EXPECT_GE(between, 2) << mode << ": progress seen between 0 and 1 only " << between << " times in "
                              << seen.size() << " looks";
    }
}

TEST_F(CpuCancel, CancelledBeforeItStartsRunsNothing) {
    const Image input = test::randomImage(64, 48, 3, Depth::U8, rng_);
    RunControl control;
    control.cancel();
    const ScopedRunControl scoped(&control);
    for (const ModeInfo& m : backend_->modes()) {
        const RunResult r = backend_->run(test::presetSpec("box:3"), input.cview(), m.id);
        EXPECT_EQ(r.error, kRunCancelled) << m.id;
        EXPECT_TRUE(r.output.empty()) << m.id;
    }
}

TEST_F(CpuCancel, UncancelledRunIsUnchanged) {
    // Every path of the parallel mode (dense, separable, running sums, integer
    // lanes), with and without a control, on all cores and on one.
    const Image u8 = test::randomImage(517, 333, 3, Depth::U8, rng_);
    const Image f32 = test::randomImage(517, 333, 1, Depth::F32, rng_);
    std::vector<FilterSpec> specs = {denseSpec(7, rng_), test::presetSpec("gaussian:5:0"), test::presetSpec("box:9"),
                                     test::presetSpec("gaussian:7:1.3"), test::presetSpec("sobel-mag")};
    for (const FilterSpec& spec : specs)
        for (const Image* input : {&u8, &f32})
            for (const char* mode : {"reference", "parallel"}) {
                const RunResult plain = backend_->run(spec, input->cview(), mode);
                ASSERT_TRUE(plain.ok()) << plain.error;
                RunControl control;
                RunResult watched;
                {
                    const ScopedRunControl scoped(&control);
                    watched = backend_->run(spec, input->cview(), mode);
                }
                ASSERT_TRUE(watched.ok()) << watched.error;
                EXPECT_TRUE(sameBytes(plain.output, watched.output)) << mode << " " << spec.name;
                EXPECT_EQ(control.progress(), 1.0);
                cpu::detail::parallelThreadLimit() = 1;
                const RunResult oneThread = backend_->run(spec, input->cview(), mode);
                cpu::detail::parallelThreadLimit() = 0;
                ASSERT_TRUE(oneThread.ok()) << oneThread.error;
                EXPECT_TRUE(sameBytes(plain.output, oneThread.output)) << mode << " " << spec.name << " on one thread";
            }
}

// Many small pairs: the cancel lands between them; those not run say so.
void expectBatchStops(BatchRunner& runner, const Image& input, const std::vector<FilterSpec>& specs) {
    const auto run =
        runAndCancel<std::vector<RunResult>>([&] { return runner.runSpecs(input.cview(), specs, "reference"); }, 50ms, true);
    ASSERT_TRUE(run.cancelIssued) << "the batch ended within 50 ms of its first progress";
    EXPECT_LT(run.msAfterCancel, 10000.0) << "still running 10 s after cancel";  // the counts below are the measure
    ASSERT_EQ(run.result.size(), specs.size());
    std::size_t ran = 0, cancelled = 0;
    for (const RunResult& r : run.result) {
        if (r.ok()) {
            ++ran;
            EXPECT_FALSE(r.output.empty());
        } else {
            EXPECT_EQ(r.error, kRunCancelled);
            EXPECT_TRUE(r.output.empty());
            ++cancelled;
        }
    }
    EXPECT_GT(ran, 0u) << "pairs before the cancel ran";
    EXPECT_GT(cancelled, specs.size() / 2) << "pairs after the cancel did not";
}

TEST_F(CpuCancel, BatchStopsBetweenItems) {
    const Image input = test::randomImage(64, 48, 1, Depth::U8, rng_);
    // Each a few milliseconds of reference loops: seconds in all, even spread over 64 cores.
    const std::vector<FilterSpec> specs(2000, denseSpec(15, rng_));
    const std::unique_ptr<BatchRunner> spread = backend_->makeBatchRunner();
    expectBatchStops(*spread, input, specs);
    const std::unique_ptr<BatchRunner> loop = makeLoopBatchRunner(*backend_);
    expectBatchStops(*loop, input, specs);
}

TEST_F(CpuCancel, PipelineStopsBetweenSteps) {
    Pipeline pipeline;
    for (int i = 0; i < 400; ++i) {
        PipelineStep step;
        step.filter = denseSpec(15, rng_);
        step.filter.output.floatOutput = true;
        pipeline.steps.push_back(step);
    }
    const Image input = test::randomImage(160, 120, 1, Depth::F32, rng_);
    const std::unique_ptr<PipelineRunner> runner = cpu::makePipelineRunner(*backend_, "reference");
    const auto run = runAndCancel<PipelineResult>([&] { return runner->run(pipeline, input.cview()); }, 50ms, true);
    ASSERT_TRUE(run.cancelIssued);
    EXPECT_EQ(run.result.error, kRunCancelled);
    EXPECT_TRUE(run.result.output.empty());
    expectStoppedSoon(run, 0.02, "pipeline");
    EXPECT_GT(run.result.steps.size(), 0u);
    EXPECT_LT(run.result.steps.size(), pipeline.steps.size());
    EXPECT_GT(run.progressAtCancel, 0.0);
    EXPECT_LT(run.progressAtCancel, 1.0);
}

TEST_F(CpuCancel, LayerStopsWithinItsRowsInFlight) {
    KernelBank bank;
    bank.name = "big";
    bank.inputs = 3;
    bank.outputs = 8;
    for (int i = 0; i < bank.inputs * bank.outputs; ++i) bank.kernels.push_back(test::randomKernel(15, 15, rng_));
    std::vector<Image> images;
    for (int n = 0; n < bank.inputs; ++n) images.push_back(test::randomImage(3000, 2000, 1, Depth::U8, rng_));
    std::vector<ConstImageView> views;
    for (const Image& img : images) views.push_back(img.cview());
    const std::unique_ptr<LayerRunner> runner = cpu::makeCpuLayerRunner(true);
    const auto run = runAndCancel<LayerResult>([&] { return runner->run(bank, views); }, 50ms, true);
    ASSERT_TRUE(run.cancelIssued);
    EXPECT_EQ(run.result.error, kRunCancelled);
    EXPECT_TRUE(run.result.outputs.empty());
    expectStoppedSoon(run, 0.02, "layer");
}

#if defined(FS_TEST_OPENCV_MODE)
// The OpenCV modes run in row bands on ROIs of the whole image: the bytes of
// one whole-image call, and a cancel between bands.
class OpenCvCancel : public ::testing::Test {
protected:
    std::unique_ptr<Backend> backend_ = cpu::makeCpuBackendWithOpenCV();
    std::mt19937 rng_ = test::testRng();
};

TEST_F(OpenCvCancel, BandsGiveTheBytesOfOneWholeImageCall) {
    // 18 M samples: several bands, and the seams between them land inside the image.
    const Image input = test::randomImage(3000, 2000, 3, Depth::U8, rng_);
    const cv::Mat src = io::asMat(input.cview());
    const FilterSpec gaussian = test::presetSpec("gaussian:7:1.3"), box = test::presetSpec("box:5");
    const FilterSpec dense = denseSpec(5, rng_);
    for (const FilterSpec* spec : {&gaussian, &dense, &box}) {
        const RunResult exact = backend_->run(*spec, input.cview(), cpu::kOpenCvExactMode);
        ASSERT_TRUE(exact.ok()) << exact.error;
        cv::Mat whole(src.rows, src.cols, src.type());
        cpu::cvfilter::filterAndMap(*spec, cpu::cvfilter::prepareSource(*spec, src), cpu::cvfilter::Separation::WhenRank1,
                                    whole.type(), whole);
        EXPECT_TRUE(sameBytes(exact.output, test::imageOf(whole))) << spec->name << ": opencv-exact in bands";
    }
    const RunResult native = backend_->run(gaussian, input.cview(), cpu::kOpenCvNativeMode);
    ASSERT_TRUE(native.ok()) << native.error;
    cv::Mat blurred;
    cv::GaussianBlur(src, blurred, cv::Size(7, 7), 1.3, 1.3, cv::BORDER_REFLECT_101);
    EXPECT_TRUE(sameBytes(native.output, test::imageOf(blurred))) << "opencv-native in bands";
    const RunResult boxed = backend_->run(box, input.cview(), cpu::kOpenCvNativeMode);
    ASSERT_TRUE(boxed.ok()) << boxed.error;
    cv::Mat averaged;
    cv::blur(src, averaged, cv::Size(5, 5), cv::Point(-1, -1), cv::BORDER_REFLECT_101);
    EXPECT_TRUE(sameBytes(boxed.output, test::imageOf(averaged))) << "opencv-native box in bands";
    const RunResult sobel = backend_->run(test::presetSpec("sobel-x"), input.cview(), cpu::kOpenCvNativeMode);
    ASSERT_TRUE(sobel.ok()) << sobel.error;
    cv::Mat gradient;
    cv::Sobel(src, gradient, CV_8U, 1, 0, 3, 1.0, 0.0, cv::BORDER_REFLECT_101);
    EXPECT_TRUE(sameBytes(sobel.output, test::imageOf(gradient))) << "opencv-native Sobel in bands";
}

TEST_F(OpenCvCancel, BothModesStopBetweenBands) {
    const Image input = test::randomImage(3000, 4000, 3, Depth::U8, rng_);
    const FilterSpec spec = denseSpec(7, rng_);  // below filter2D's DFT size, so it runs in bands
    for (const char* mode : {cpu::kOpenCvExactMode, cpu::kOpenCvNativeMode}) {
        const auto run =
            runAndCancel<RunResult>([&] { return backend_->run(spec, input.cview(), mode); }, 0ms, /*onProgress=*/true);
        ASSERT_TRUE(run.cancelIssued) << mode << " ended before its first band was counted";
        EXPECT_EQ(run.result.error, kRunCancelled) << mode;
        EXPECT_TRUE(run.result.output.empty()) << mode;
        expectStoppedSoon(run, 2.0 / 9.0 + 0.01, mode);  // 9 bands: the one in flight, and one more at most
        EXPECT_GT(run.progressAtCancel, 0.0) << mode;
        EXPECT_LT(run.progressAtCancel, 1.0) << mode;
    }
}
#endif

}  // namespace
}  // namespace fs
