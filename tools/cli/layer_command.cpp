// filterstudio-cli layer: N:M:M convolution (fs/layer.hpp) through the layer
// job (services/layer_job.hpp) the studio's batch dialog runs too: the
// backend's one-launch layer runner and, with --compare, the same layer as
// N x M separate runs added on the host, both timed.
#include <algorithm>
#include <iostream>

#include "backends.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"
#include "layer_job.hpp"
#include "layers.hpp"

namespace fs::cli {
namespace {

struct LayerCommandOptions {
    batch::LayerOptions job;
    std::string backend = "cpu", mode;
};

LayerCommandOptions parseLayer(const std::vector<std::string>& args) {
    LayerCommandOptions o;
    OptionReader reader(args, "layer");
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.job.inputs.push_back(reader.value());
        else if (name == "-b" || name == "--bank") o.job.bankPath = reader.value();
        else if (name == "-o" || name == "--output") o.job.outDir = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--format") o.job.format = reader.value();
        else if (name == "--max-pixels") o.job.maxPixels = readMaxPixels(reader);
        else if (name == "--overwrite") {
            reader.noValue();
            o.job.overwrite = true;
        } else if (name == "--compare") {
            reader.noValue();
            o.job.compare = true;
        } else if (name == "--filter-alpha") {
            reader.noValue();
            o.job.filterAlpha = true;
        } else reader.unknown();
    }
    if (o.job.inputs.empty()) throw UsageError{"layer needs -i IN for every input (as many as the bank has inputs)"};
    if (o.job.bankPath.empty()) throw UsageError{"layer needs -b BANK.json"};
    if (o.job.outDir.empty()) throw UsageError{"layer needs -o OUTDIR"};
    return o;
}

}  // namespace

int runLayer(const std::vector<std::string>& args) {
    LayerCommandOptions o;
    try {
        o = parseLayer(args);
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
    const batch::LayerPlan plan = batch::planLayer(o.job);
    if (plan.problem == batch::LayerPlan::Problem::Usage) return usageError(plan.error);
    if (!plan.ok()) return inputError(plan.error);
    for (const std::string& out : plan.outputs)  // before any filtering: an unknown --format, a name past NAME_MAX
        if (const std::string why = io::checkOutputName(out); !why.empty()) return inputError(out + ": " + why);

    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = nullptr;
    std::string mode = o.mode;
    if (const int rc = chooseBackend(backends, o.backend, mode, backend); rc != kExitOk) return rc;
    std::unique_ptr<LayerRunner> runner = makeLayerRunner(backend->id());
    if (!runner) return backendError(o.backend + " has no layer runner; use --backend cpu or cuda");

    const batch::LayerJobResult result = batch::runLayerJob(plan, *runner, *backend, mode);
    if (!result.ok()) {
        const int rc = result.inputProblem
                           ? inputError(result.error)
                           : backendError(o.backend + " layer failed: " + result.error + cpuFallbackHint(o.backend));
        // A write that failed part-way (a full disk) leaves the outputs before it: say which.
        if (!result.written.empty()) {
            for (const std::string& path : result.written) std::cerr << "written before the failure: " << printable(path) << "\n";
            for (const std::string& path : plan.outputs)
                if (std::find(result.written.begin(), result.written.end(), path) == result.written.end())
                    std::cerr << "not written: " << printable(path) << "\n";
        }
        return rc;
    }
    std::cout << "layer " << printable(plan.bank.name) << ": " << plan.bank.inputs << " input(s) x " << plan.bank.outputs
              << " output(s), " << result.width << "x" << result.height << ", " << result.channels << " ch, "
              << depthName(result.depth) << "\n"
              << "one launch:  " << timingLine(result.layer.timing) << "\n";
    if (result.oneByOne)
        std::cout << "one by one (" << plan.bank.inputs * plan.bank.outputs << " runs of " << o.backend << "/" << mode
                  << ", added on the host): " << timingLine(result.oneByOne->timing) << "\n"
                  << "largest difference between the two: " << result.largestDifference << "\n";
    for (const std::string& path : result.written) std::cout << "wrote " << printable(path) << "\n";
    return kExitOk;
}

}  // namespace fs::cli
