// filterstudio-cli bench --preset NAME: rebuilds a paper's table (services/
// bench_presets.hpp) and writes it as CSV, with the time and speed-up plots
// as PNG where this CLI was built with Qt.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <filesystem>
#include <iostream>

#include "backends.hpp"
#include "bench_presets.hpp"
#include "cli_common.hpp"
#include "fs/file_access.hpp"
#if defined(FS_CLI_HAS_PLOTS)
#include "bench_plots.hpp"
#endif

namespace fs::cli {
namespace {

struct PresetOptions {
    std::string preset, csv, plots;
    bool quick = false, overwrite = false;
    std::uint32_t seed = 1;
    std::optional<int> repeats, warmup;
    TransferOverrides transfer;
    std::vector<std::pair<int, int>> sizes;  // empty: the preset's
    std::vector<std::string> exclude;        // contender labels to leave out
};

// "2800,1920x1200": a side for a square, or WxH; each from 1 to 65536.
std::vector<std::pair<int, int>> parseSizeList(const std::string& text) {
    std::vector<std::pair<int, int>> sizes;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        const std::size_t x = item.find('x');
        const std::string w = item.substr(0, x), h = x == std::string::npos ? w : item.substr(x + 1);
        auto side = [&](const std::string& t) {
            if (t.empty() || t.size() > 5 || t.find_first_not_of("0123456789") != std::string::npos || std::stoi(t) < 1 ||
                std::stoi(t) > 65536)
                throw UsageError{"--sizes needs sides or WxH from 1 to 65536 separated by commas (e.g. 2800,5600 or "
                                 "1920x1200), not '" + text + "'"};
            return std::stoi(t);
        };
        sizes.emplace_back(side(w), side(h));
    }
    if (sizes.empty()) throw UsageError{"--sizes needs at least one size"};
    return sizes;
}

PresetOptions parsePresetOptions(const std::vector<std::string>& args) {
    PresetOptions o;
    OptionReader reader(args, "bench --preset");
    auto whole = [&reader](long long high) {
        const std::string name = reader.name();
        const double v = reader.number();
        if (v < 0 || v > static_cast<double>(high) || v != static_cast<double>(static_cast<long long>(v)))
            throw UsageError{name + " needs a whole number from 0 to " + std::to_string(high)};
        return static_cast<long long>(v);
    };
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "--preset") o.preset = reader.value();
        else if (name == "--csv") o.csv = reader.value();
        else if (name == "--plots") o.plots = reader.value();
        else if (name == "--sizes") o.sizes = parseSizeList(reader.value());
        else if (name == "--exclude") o.exclude.push_back(reader.value());
        else if (name == "--seed") o.seed = static_cast<std::uint32_t>(whole(4294967295LL));
        else if (name == "--repeats") {
            o.repeats = static_cast<int>(whole(100000));
            if (*o.repeats < 1) throw UsageError{"--repeats needs at least 1"};
        } else if (name == "--warmup") o.warmup = static_cast<int>(whole(10000));
        else if (name == "--quick") {
            reader.noValue();
            o.quick = true;
        } else if (name == "--overwrite") {
            reader.noValue();
            o.overwrite = true;
        } else if (name == "--resident") {
            reader.noValue();
            o.transfer.knobs.transfers = Transfers::Resident;
        } else if (!o.transfer.read(reader)) reader.unknown();
    }
    if (o.preset.empty()) throw UsageError{"bench --preset needs a preset name"};
    if (!o.csv.empty() && std::filesystem::path(o.csv).filename().empty())
        throw UsageError{"--csv needs a file name, not '" + o.csv + "'"};
#if !defined(FS_CLI_HAS_PLOTS)
    if (!o.plots.empty())
        throw UsageError{"--plots needs the Qt build of filterstudio-cli (this one was built without Qt); "
                         "leave out --plots, or plot the CSV elsewhere"};
#endif
    return o;
}

// The same checks as `bench --csv`: refused before anything runs.
int checkWritable(const std::string& path, bool overwrite) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return inputError(path + ": is a folder, not a file");
    const files::OutputCheck check = files::checkOutput(path);
    if (check.status == files::OutputCheck::Status::Refused) return inputError(path + ": " + check.problem);
    if (check.status == files::OutputCheck::Status::Exists && !overwrite)
        return inputError(path + ": the file exists; pass --overwrite to replace it");
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
        return inputError(path + ": folder " + parent.string() + " does not exist");
    return kExitOk;
}

std::string ms(const bench::PartStats& p) {
    if (!p.present) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f±%.3f", p.mean, p.stddev);
    return buf;
}

std::string presetTable(const std::vector<bench::BenchRecord>& records) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "  %-38s %-11s %4s %-18s %16s %18s %16s %18s %8s %8s %9s\n", "contender", "size", "mask",
                  "shape", "upload ms", "kernel ms", "download ms", "total ms", "speedup", "GB/s", "GFLOP/s");
    out += line;
    for (const bench::BenchRecord& r : records) {
        const std::string size = std::to_string(r.width) + "x" + std::to_string(r.height);
        const std::string contender = printable(r.contender), error = printable(r.error);
        if (!r.ok()) {
            std::snprintf(line, sizeof line, "  %-38s %-11s %4d %-18s %s\n", contender.c_str(), size.c_str(), r.maskSize,
                          r.shape.c_str(), error.c_str());
        } else {
            auto opt = [](const std::optional<double>& v) {
                char b[32];
                if (!v) return std::string("-");
                std::snprintf(b, sizeof b, "%.2f", *v);
                return std::string(b);
            };
            std::snprintf(line, sizeof line, "  %-38s %-11s %4d %-18s %16s %18s %16s %18s %8s %8s %9s\n",
                          contender.c_str(), size.c_str(), r.maskSize, r.shape.c_str(), ms(r.upload).c_str(),
                          ms(r.kernel).c_str(), ms(r.download).c_str(), ms(r.total).c_str(), opt(r.speedup).c_str(),
                          opt(r.gbps).c_str(), opt(r.gflops).c_str());
        }
        out += line;
    }
    return out;
}

}  // namespace

int runBenchPresetCommand(const std::vector<std::string>& args) {
    PresetOptions o;
    bench::BenchPreset preset;
    try {
        o = parsePresetOptions(args);
        std::string why;
        if (!bench::makeBenchPreset(o.preset, o.quick, preset, &why)) throw UsageError{why};
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
    if (!o.sizes.empty()) preset.sizes = o.sizes;
    for (const std::string& label : o.exclude) {
        const auto it = std::find_if(preset.contenders.begin(), preset.contenders.end(),
                                     [&](const bench::Contender& c) { return c.label == label; });
        if (it == preset.contenders.end()) {
            std::string known;
            for (const bench::Contender& c : preset.contenders) known += (known.empty() ? "'" : ", '") + c.label + "'";
            return usageError("--exclude: " + o.preset + " has no contender '" + label + "'; it has " + known);
        }
        preset.contenders.erase(it);
    }
    if (o.repeats) preset.repeats = *o.repeats;
    if (o.warmup) preset.warmup = *o.warmup;
    if (o.transfer.knobs.host != HostMemory::Pageable) preset.knobs.host = o.transfer.knobs.host;
    if (o.transfer.knobs.transfers != Transfers::Overlapped) preset.knobs.transfers = o.transfer.knobs.transfers;
    if (o.transfer.knobs.deviceBudgetBytes) preset.knobs.deviceBudgetBytes = o.transfer.knobs.deviceBudgetBytes;

    // Every output is checked before the (long) run, so none ends in a lost result.
    if (!o.csv.empty())
        if (const int rc = checkWritable(o.csv, o.overwrite); rc != kExitOk) return rc;
    if (!o.plots.empty()) {
        std::error_code ec;
        if (std::filesystem::exists(o.plots, ec) && !std::filesystem::is_directory(o.plots, ec))
            return inputError(o.plots + ": --plots needs a folder");
        for (const char* suffix : {"-time.png", "-speedup.png"}) {
            const std::string png = (std::filesystem::path(o.plots) / (preset.name + suffix)).string();
            if (std::filesystem::is_directory(o.plots, ec))
                if (const int rc = checkWritable(png, o.overwrite); rc != kExitOk) return rc;
        }
    }

    std::cout << "preset " << preset.name << (preset.quick ? " (quick)" : "") << ": " << preset.title << "\n"
              << "source: " << preset.source << "\n"
              << "seed " << o.seed << ", " << preset.warmup << " warm-up and " << preset.repeats
              << " timed runs per point; speed-up against " << preset.baseline << "\n"
              << "CUDA transfers: " << hostMemoryName(preset.knobs.host) << " host memory, "
              << transfersName(preset.knobs.transfers) << ", device memory budget "
              << (preset.knobs.deviceBudgetBytes ? std::to_string(preset.knobs.deviceBudgetBytes >> 20) + " MB"
                                                 : std::string("the engine's own"))
              << "\n"
              << std::flush;
    const std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    const bench::BenchRunResult result = bench::runBenchPreset(
        preset, backends, o.seed, [](int done, int total, const bench::BenchRecord& r) {
            std::cerr << "[" << done << "/" << total << "] " << printable(r.contender) << " " << r.width << "x" << r.height
                      << " mask " << r.maskSize << (r.masks > 1 ? " x" + std::to_string(r.masks) : std::string()) << ": "
                      << (r.ok() ? std::to_string(r.total.mean) + " ms" : printable(r.error)) << "\n";
            return true;
        });
    std::cout << presetTable(result.records) << std::flush;

    if (!o.csv.empty()) {
        std::string problem;
        if (!files::writeFileAtomically(o.csv, bench::benchRecordsCsv(result.records), o.overwrite, problem))
            return inputError(o.csv + ": could not write the CSV: " + problem);
        std::cout << "wrote " << o.csv << "\n";
    }
#if defined(FS_CLI_HAS_PLOTS)
    if (!o.plots.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o.plots, ec);
        if (ec) return inputError(o.plots + ": could not create the folder: " + ec.message());
        std::vector<std::string> written;
        std::string why;
        if (!ui::writeBenchPlots(result.records, preset.name, preset.baseline, o.plots, written, why))
            return inputError(why);
        for (const std::string& png : written) std::cout << "wrote " << png << "\n";
    }
#endif
    std::string failures;
    for (const bench::BenchRecord& r : result.records)
        if (!r.ok() && !r.skipped) failures += (failures.empty() ? "" : "; ") + r.contender + ": " + r.error;
    if (!failures.empty()) return backendError(failures);
    return kExitOk;
}

}  // namespace fs::cli
