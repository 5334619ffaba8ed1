#pragma once
// An N:M:M layer on image files, shared by `filterstudio-cli layer` and the
// studio's batch dialog: N input files in order, a bank file, M output files
// OUTDIR/<bank name>-<m>.<ext>. Checked before anything is written.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fs/backend.hpp"
#include "fs/layer.hpp"

namespace fs::batch {

struct LayerOptions {
    std::vector<std::string> inputs;  // image files, one per bank input, in order
    std::string bankPath, outDir;
    std::string format;  // output extension without the dot; empty: the first input's (tif for float output)
    bool overwrite = false;
    bool compare = false;  // also the one-by-one run, timed
    // Off: 4-channel outputs keep the first input's alpha, as every other command does.
    bool filterAlpha = false;
    std::uint64_t maxPixels = 0;  // 0: the image loader's default
};

struct LayerPlan {
    enum class Problem { None, Usage, Input };
    Problem problem = Problem::None;
    std::string error;
    LayerOptions options;
    KernelBank bank;
    std::vector<std::string> outputs;  // M paths
    bool ok() const { return problem == Problem::None; }
};

// Reads the bank and checks the inputs' count and every output path; loads no image.
LayerPlan planLayer(const LayerOptions& options);

struct LayerJobResult {
    std::string error;
    bool inputProblem = false;  // error is about an input file, not the run
    LayerResult layer;                    // the backend's layer runner
    std::optional<LayerResult> oneByOne;  // with LayerOptions::compare
    double largestDifference = 0.0;       // between the two, in output units
    int width = 0, height = 0, channels = 0;
    Depth depth = Depth::U8;
    std::vector<std::string> written;
    bool ok() const { return error.empty(); }
};

// Loads the inputs, runs `runner` (and the one-by-one way through `backend`
// in `mode` when asked), writes the outputs. Never throws. A RunControl on
// the calling thread (fs/run_control.hpp) stops it before anything is
// written, with error == kRunCancelled.
LayerJobResult runLayerJob(const LayerPlan& plan, LayerRunner& runner, Backend& backend, const std::string& mode);

}  // namespace fs::batch
