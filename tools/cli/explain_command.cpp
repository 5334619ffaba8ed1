// explain: which mode and kernel a backend would run for a filter on an image
// of a given shape, and the dispatch rule that chose them. Planned on the
// host: it needs no GPU, and it never runs the filter.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "backends.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"

namespace fs::cli {
namespace {

struct ExplainOptions {
    std::string input, kernel, backend = "cuda", mode;
    SpecOverrides overrides;
    bool rules = false;
    std::uint64_t maxPixels = io::LoadOptions{}.maxPixels;
};

ExplainOptions parseExplain(const std::vector<std::string>& args) {
    ExplainOptions o;
    OptionReader reader(args, "explain");
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.input = reader.value();
        else if (name == "-k" || name == "--kernel") o.kernel = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--max-pixels") o.maxPixels = readMaxPixels(reader);
        else if (name == "--rules") {
            reader.noValue();
            o.rules = true;
        } else if (!o.overrides.read(reader)) reader.unknown();
    }
    if (o.rules) {
        if (!o.input.empty() || !o.kernel.empty() || !o.mode.empty())
            throw UsageError{"explain --rules takes only --backend"};
        return o;
    }
    if (o.input.empty()) throw UsageError{"explain needs -i IN (an image file or random:WxH:CHANNELS:DEPTH)"};
    if (o.kernel.empty()) throw UsageError{"explain needs -k KERNEL"};
    return o;
}

// The image's shape: from a random:WxH:C:D text, or the file's own.
int imageShape(const ExplainOptions& o, int& width, int& height, int& channels, Depth& depth) {
    if (isRandomImageSpec(o.input)) {
        RandomImageSpec spec;
        std::string why;
        if (!parseRandomImageSpec(o.input, spec, why)) throw UsageError{why};
        width = spec.width, height = spec.height, channels = spec.channels, depth = spec.depth;
        return kExitOk;
    }
    io::LoadOptions options;
    options.maxPixels = o.maxPixels;
    io::LoadResult loaded = io::loadImage(o.input, options);
    if (!loaded.ok()) return inputError(loaded.error);
    width = loaded.image.width(), height = loaded.image.height();
    channels = loaded.image.channels(), depth = loaded.image.depth();
    return kExitOk;
}

}  // namespace

int runExplain(const std::vector<std::string>& args) {
    ExplainOptions o;
    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;
    try {
        o = parseExplain(args);
        if (!o.rules)
            if (const int rc = imageShape(o, width, height, channels, depth); rc != kExitOk) return rc;
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
    // An unavailable backend still explains: its choice is made on the host.
    const std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    const Backend* backend = nullptr;
    for (const auto& b : backends)
        if (b->id() == o.backend) backend = b.get();
    if (!backend) return noSuchBackend(backends, o.backend, false);
    if (o.rules) {
        const std::string table = backend->dispatchRules();
        if (table.empty()) return usageError(o.backend + " has no dispatch rules: each of its modes runs one way");
        std::cout << table;
        return kExitOk;
    }

    FilterSpec spec;
    if (const int rc = loadKernel(o.kernel, spec); rc != kExitOk) return rc;
    if (const int rc = o.overrides.applyTo(spec); rc != kExitOk) return rc;
    const std::string mode = o.mode.empty() ? backend->defaultMode() : o.mode;
    const Explanation e = backend->explain(spec, width, height, depth, channels, mode);
    std::cout << "backend " << backend->id() << ", mode " << printable(mode) << ", kernel " << printable(spec.name)
              << " (" << spec.kernels[0].width << "x" << spec.kernels[0].height
              << (spec.kernels.size() > 1 ? " x" + std::to_string(spec.kernels.size()) + ", magnitude" : "")
              << "), image " << width << "x" << height << " " << channels << " ch " << depthName(depth) << "\n";
    if (!e.ok()) return backendError(o.backend + "/" + mode + " cannot run it: " + e.error);
    std::cout << "runs:   " << e.mode << "\n";
    if (!e.rule.empty()) std::cout << "rule:   " << e.rule << "\n";
    if (!e.why.empty()) std::cout << "why:    " << e.why << "\n";
    if (!e.kernel.empty()) std::cout << "kernel: " << e.kernel << "\n";
    if (!e.launch.empty()) std::cout << "launch: " << e.launch << "\n";
    std::cout << "tuned:  " << (e.tuned.empty() ? "none cached" : e.tuned) << "\n";
    if (!e.note.empty()) std::cout << "note:   " << e.note << "\n";
    return kExitOk;
}

}  // namespace fs::cli
