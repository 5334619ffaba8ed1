#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/launch.hpp"
#include "fs/timing.hpp"

namespace fs {

class BatchRunner;
class PipelineRunner;

struct ModeInfo {
    std::string id;           // "reference", "shared", ...
    std::string description;  // one or two sentences for the classroom
    bool available = true;
    std::string unavailableReason;  // set when !available
    // Roles, so callers never pick a mode by its name:
    bool isReference = false;  // the single-thread truth every other mode is checked against
    bool isDefault = false;    // the backend's fastest mode that matches the reference; run when none is named
    // Matches the reference within the mode's documented tolerance, not to its
    // per-tap rounding (an FFT's transforms): tests that demand the direct
    // modes' arithmetic (saturating extreme scales bit for bit) skip it.
    bool approximate = false;
};

struct RunResult {
    Image output;
    TimingRecord timing;
    std::string error;  // non-empty: the run failed and output is empty
    bool ok() const { return error.empty(); }
};

// Runs a FilterSpec. Implementations never throw out of run(): every failure
// (bad spec, out of memory, missing device) comes back in RunResult::error.
class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string id() const = 0;           // "cpu", "cuda", ...
    virtual std::string displayName() const = 0;  // "CPU", "CUDA (NVIDIA H100)"
    virtual std::vector<ModeInfo> modes() const = 0;
    // Empty when usable; otherwise why not ("no CUDA device found").
    virtual std::string unavailableReason() const = 0;
    bool available() const { return unavailableReason().empty(); }
    // One line per device the backend can see (a GPU's name, compute
    // capability, memory, driver and runtime versions), or one saying why it
    // sees none; empty for a backend without devices (the CPU).
    virtual std::vector<std::string> deviceDescriptions() const { return {}; }
    virtual RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) = 0;

    // Launch configuration (GPU backends; see fs/launch.hpp). A backend
    // without launch knobs runs a default configuration as run() and refuses
    // any other with a reason.
    virtual bool hasLaunchConfig() const { return false; }
    virtual RunResult runWithLaunch(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                                    const LaunchConfig& launch);
    // How `mode` would launch on an image of this shape; error says why a
    // configuration is refused (too many threads, too much shared memory...).
    virtual LaunchReport describeLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                        const std::string& mode, const LaunchConfig& launch) const;
    // Which mode and kernel would run `spec` on an image of this shape, and
    // why (fs/launch.hpp); needs no device. The default names the mode alone.
    virtual Explanation explain(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& mode) const;
    // How a choosing mode picks its kernels, as a markdown table (the GPU's
    // dispatch rules); empty for a backend whose modes each run one way.
    virtual std::string dispatchRules() const { return {}; }
    // Times the candidate configurations of `mode` on `input` and picks the
    // fastest; stored in the tuning cache, which the "auto" mode then uses.
    virtual TuneResult tune(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                            const TuneOptions& options, const TuneProgress& progress);
    // Forgets every tuned configuration (memory and file). Empty on success.
    virtual std::string resetTuning();

    // The best batch runner for this backend (fs/batch.hpp); the default
    // loops over run() on the calling thread.
    virtual std::unique_ptr<BatchRunner> makeBatchRunner();
    // A pipeline runner with this backend's own way of keeping intermediates
    // (fs/pipeline.hpp), or nullptr when it has none: callers then run the
    // host pipeline around run().
    virtual std::unique_ptr<PipelineRunner> makePipelineRunner(const std::string& mode);

    std::optional<ModeInfo> findMode(const std::string& mode) const;
    // The id of the mode marked isDefault, else the first mode's; empty when there are none.
    std::string defaultMode() const;
};

// Checks shared by every backend before it runs anything.
std::string validateRun(const FilterSpec& spec, ConstImageView input);

}  // namespace fs
