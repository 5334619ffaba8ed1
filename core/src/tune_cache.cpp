// The tuning cache file: {"version": 1, "entries": [{key..., "block": [32, 8],
// "perThread": [1, 4], "halo": "cooperative", "radius": "compiled", "ms": 0.12}]}.
// Without nlohmann-json (the GPU machine's Qt-less build) it stays in memory.
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "fs/launch.hpp"

#if defined(FS_HAVE_KERNEL_FILES)
#include "json_fields.hpp"
#endif

namespace fs {

TuneCache::TuneCache(std::string path) : path_(std::move(path)) {}

std::string TuneCache::defaultPath() {
    if (const char* over = std::getenv("FILTERSTUDIO_TUNE_CACHE"); over && *over) return over;
    std::string dir;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) dir = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) dir = std::string(home) + "/.config";
    else dir = ".";
    return dir + "/filterstudio/launch-tuning.json";
}

std::optional<LaunchConfig> TuneCache::find(const TuneKey& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : entries_)
        if (e.key == key) return e.config;
    return std::nullopt;
}

void TuneCache::store(const TuneKey& key, const LaunchConfig& config, double ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Entry& e : entries_)
        if (e.key == key) {
            e.config = config, e.ms = ms;
            return;
        }
    entries_.push_back({key, config, ms});
}

std::size_t TuneCache::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
}

namespace {
// Empty when nothing is at `path` or it parses as a tuning cache; otherwise why
// it is not one. reset() and save() replace or delete only such a file, so a
// mistyped FILTERSTUDIO_TUNE_CACHE never costs the user another file.
std::string notATuningCache(const std::string& path);
}  // namespace

std::string TuneCache::reset() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        entries_.clear();
    }
    if (std::string why = notATuningCache(path_); !why.empty()) return why;
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    if (ec) return "could not delete the tuning cache " + path_ + ": " + ec.message();
    return {};
}

#if defined(FS_HAVE_KERNEL_FILES)

namespace {
using namespace json_fields;

int positive(const json& j, const std::string& path) {
    const double v = number(j, path);
    if (v < 0 || v > 4096 || v != static_cast<int>(v)) fieldError(path, "must be a whole number from 0 to 4096");
    return static_cast<int>(v);
}

void shape(const json& j, const std::string& path, int& x, int& y) {
    if (!j.is_array() || j.size() != 2) fieldError(path, "must be [x, y]");
    x = positive(j[0], path + "[0]");
    y = positive(j[1], path + "[1]");
}

struct ParsedEntry {
    TuneKey key;
    LaunchConfig config;
    double ms = 0.0;
};

bool parseEntries(const std::string& text, std::vector<ParsedEntry>& parsed, std::string* error) {
    return parseDocument(
        text,
        [&](const json& doc) {
            if (!doc.is_object()) fieldError("(top level)", "must be an object");
            if (!doc.contains("version") || number(doc["version"], "version") != 1)
                fieldError("version", "must be 1");
            if (!doc.contains("entries") || !doc["entries"].is_array()) fieldError("entries", "must be an array");
            for (std::size_t i = 0; i < doc["entries"].size(); ++i) {
                const json& e = doc["entries"][i];
                const std::string at = "entries[" + std::to_string(i) + "]";
                if (!e.is_object()) fieldError(at, "must be an object");
                ParsedEntry entry;
                auto field = [&](const char* name) -> const json& {
                    if (!e.contains(name)) fieldError(at + "." + name, "is missing");
                    return e[name];
                };
                entry.key.gpu = string(field("gpu"), at + ".gpu");
                entry.key.mode = string(field("mode"), at + ".mode");
                entry.key.radiusX = positive(field("radiusX"), at + ".radiusX");
                entry.key.radiusY = positive(field("radiusY"), at + ".radiusY");
                if (!parseDepth(string(field("depth"), at + ".depth"), entry.key.depth))
                    fieldError(at + ".depth", "must be u8, u16 or f32");
                entry.key.channels = positive(field("channels"), at + ".channels");
                entry.key.kernels = positive(field("kernels"), at + ".kernels");
                entry.key.sizeClass = string(field("size"), at + ".size");
                shape(field("block"), at + ".block", entry.config.blockX, entry.config.blockY);
                shape(field("perThread"), at + ".perThread", entry.config.perThreadX, entry.config.perThreadY);
                if (!parseHaloScheme(string(field("halo"), at + ".halo"), entry.config.halo))
                    fieldError(at + ".halo", "must be default, cooperative or per-thread");
                if (!parseRadiusPath(string(field("radius"), at + ".radius"), entry.config.radius))
                    fieldError(at + ".radius", "must be default, compiled or runtime");
                entry.ms = number(field("ms"), at + ".ms");
                parsed.push_back(std::move(entry));
            }
        },
        error);
}

std::string notATuningCache(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return {};
    std::string text, error;
    if (!readTextFile(path, "tuning cache", text, &error)) return error + "; left as it is";
    std::vector<ParsedEntry> entries;
    if (!parseEntries(text, entries, &error))
        return path + " is not a tuning cache (" + error + "); left as it is";
    return {};
}
}  // namespace

std::string TuneCache::load() {
    std::string text, error;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) {
        std::lock_guard<std::mutex> lock(mutex_);
        entries_.clear();
        return {};
    }
    if (!readTextFile(path_, "tuning cache", text, &error)) return error;
    std::vector<ParsedEntry> parsed;
    const bool ok = parseEntries(text, parsed, &error);
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
    if (!ok) return "the tuning cache " + path_ + " is not usable (" + error + "); starting with an empty one";
    for (ParsedEntry& e : parsed) entries_.push_back({e.key, e.config, e.ms});
    return {};
}

std::string TuneCache::save() const {
    json entries = json::array();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Entry& e : entries_)
            entries.push_back({{"gpu", e.key.gpu},
                               {"mode", e.key.mode},
                               {"radiusX", e.key.radiusX},
                               {"radiusY", e.key.radiusY},
                               {"depth", depthName(e.key.depth)},
                               {"channels", e.key.channels},
                               {"kernels", e.key.kernels},
                               {"size", e.key.sizeClass},
                               {"block", {e.config.blockX, e.config.blockY}},
                               {"perThread", {e.config.perThreadX, e.config.perThreadY}},
                               {"halo", haloSchemeName(e.config.halo)},
                               {"radius", radiusPathName(e.config.radius)},
                               {"ms", e.ms}});
    }
    const json doc{{"version", 1}, {"entries", entries}};
    if (std::string why = notATuningCache(path_); !why.empty()) return why;
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    std::string error;
    if (!writeTextFileAtomically(path_, "tuning cache", doc.dump(2) + "\n", &error)) return error;
    return {};
}

#else

namespace {
std::string notATuningCache(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return {};
    return path + " was not deleted: this build (without nlohmann-json) cannot read it to check it is a tuning cache";
}
}  // namespace

std::string TuneCache::load() { return {}; }
std::string TuneCache::save() const { return "built without nlohmann-json: tuned configurations last until exit"; }

#endif

}  // namespace fs
