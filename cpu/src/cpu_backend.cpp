// Backend "cpu": validates, allocates the output, times the mode function and
// turns every failure into RunResult::error. Modes live in their own files and
// check the run's control (fs/run_control.hpp) between row tiles.
#include <chrono>
#include <exception>
#include <new>

#include "cpu_modes.hpp"
#include "fs/cpu/batch.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/pipeline.hpp"

namespace fs::cpu {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(std::vector<CpuMode> modes) : modes_(std::move(modes)) {}

    std::string id() const override { return "cpu"; }
    std::string displayName() const override { return "CPU"; }
    std::string unavailableReason() const override { return {}; }

    std::unique_ptr<BatchRunner> makeBatchRunner() override { return makeCpuBatchRunner(*this); }
    std::unique_ptr<PipelineRunner> makePipelineRunner(const std::string& mode) override {
        return cpu::makePipelineRunner(*this, mode);
    }

    std::vector<ModeInfo> modes() const override {
        std::vector<ModeInfo> infos;
        for (const CpuMode& m : modes_) infos.push_back(m.info);
        return infos;
    }

    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) override {
        RunResult result;
        result.timing.backend = id();
        result.timing.mode = mode;
        const Clock::time_point start = Clock::now();
        const CpuMode* chosen = nullptr;
        for (const CpuMode& m : modes_)
            if (m.info.id == mode) chosen = &m;
        if (!chosen) {
            result.error = "the cpu backend has no mode '" + mode + "'";
            return result;
        }
        if (std::string why = validateRun(spec, input); !why.empty()) {
            result.error = why;
            return result;
        }
        if (runCancelled()) {  // superseded before it started
            result.error = kRunCancelled;
            return result;
        }
        try {
            Image output(input.width, input.height, input.channels, spec.outputDepth(input.depth));
            // Poisoned so that a mode skipping pixels fails its tests instead of passing on zeros.
            output.fillBytes(0xA5);
            const Clock::time_point kernelStart = Clock::now();
            chosen->run(spec, input, output.view());
            result.timing.kernelMs = millisecondsSince(kernelStart);
            result.output = std::move(output);
        } catch (const RunCancelled&) {
            result.error = kRunCancelled;
        } catch (const std::bad_alloc&) {
            result.error = "out of memory for a " + std::to_string(input.width) + "x" + std::to_string(input.height) +
                           " image";
        } catch (const std::exception& e) {
            result.error = std::string("cpu/") + mode + " failed: " + e.what();
        } catch (...) {
            result.error = "cpu/" + mode + " failed with an unknown error";
        }
        if (result.ok()) result.timing.totalMs = millisecondsSince(start);
        else result.timing.kernelMs.reset();
        return result;
    }

private:
    std::vector<CpuMode> modes_;
};

}  // namespace

std::vector<CpuMode> builtinModes() {
    return {
        {{"reference", "Plain loops on one thread, summed in kernel order: the result every other mode is checked against.",
          true, {}, /*isReference=*/true},
         &runReference},
        {{"parallel",
          "Row tiles on a persistent pool of one thread per core, with explicit SIMD (AVX-512, AVX2+FMA or SSE2, "
          "picked at run time). Rank-1 kernels run as a column pass then a row pass with fused multiply-adds "
          "(box kernels on integer images as running sums, on float images from suffix and prefix sums of "
          "blocks of rows); when the weights are n / 2^k and every sum of the "
          "integer samples is exact in float (binomial Gaussians 3-7, Sobel, on u8) the result is the "
          "reference's bit for bit, otherwise it differs by float rounding only (at most 1 level on u8 and "
          "u16). Other rank-1 kernels on u8 to u8 (Gaussians of any sigma) use fixed-point weights with "
          "32-bit sums, within 1 level of the reference (the bound is checked per kernel; kernels with "
          "large sums of |weight| keep the float passes). Other kernels add in the reference's order: bit "
          "for bit.",
          true, {}, /*isReference=*/false, /*isDefault=*/true},
         &runParallel},
    };
}

std::unique_ptr<Backend> makeCpuBackendWithModes(std::vector<CpuMode> modes) {
    return std::make_unique<CpuBackend>(std::move(modes));
}

}  // namespace detail

std::unique_ptr<Backend> makeCpuBackend() { return detail::makeCpuBackendWithModes(detail::builtinModes()); }

}  // namespace fs::cpu
