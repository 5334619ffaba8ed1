#include "cli_common.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>

#include "backends.hpp"
#include "fs/file_access.hpp"
#include "fs/kernel_file.hpp"
#include "fs/presets.hpp"

namespace fs::cli {

namespace {

// Unicode format controls (general category Cf): the bidi embeddings,
// overrides and isolates (U+202E turns "gpj.exe" into "exe.jpg" on screen),
// zero-width characters, invisible operators and the tag characters. They
// print nothing visible, so a name holding one is not what it looks like.
bool isFormatControl(std::uint32_t c) {
    return c == 0x00AD || (c >= 0x0600 && c <= 0x0605) || c == 0x061C || c == 0x06DD || c == 0x070F ||
           c == 0x08E2 || c == 0x180E || (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x206F) || c == 0xFEFF ||
           (c >= 0xFFF9 && c <= 0xFFFB) || c == 0x110BD || c == 0x110CD || (c >= 0x13430 && c <= 0x1343F) ||
           (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 ||
           (c >= 0xE0020 && c <= 0xE007F);
}

}  // namespace

std::string printable(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    auto escape = [&](unsigned char c) {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7F) escape(c);
            else out += static_cast<char>(c);
            ++i;
            continue;
        }
        // A well-formed UTF-8 sequence passes unless it encodes a C1 control (U+0080..U+009F).
        const std::size_t length = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        bool wellFormed = length != 0 && i + length <= text.size() && c < 0xF5;
        for (std::size_t k = 1; wellFormed && k < length; ++k)
            wellFormed = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
        const bool c1Control = wellFormed && length == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
        if (!wellFormed || c1Control) {
            escape(c);
            ++i;
            continue;
        }
        std::uint32_t point = c & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
        for (std::size_t k = 1; k < length; ++k) point = point << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3F);
        if (isFormatControl(point)) {
            char code[16];
            std::snprintf(code, sizeof code, point > 0xFFFF ? "\\U%08x" : "\\u%04x", static_cast<unsigned>(point));
            out += code;
            i += length;
            continue;
        }
        out.append(text, i, length);
        i += length;
    }
    return out;
}

int usageError(const std::string& message) {
    std::cerr << "filterstudio-cli: " << printable(message) << "\nRun `filterstudio-cli --help` for usage.\n";
    return kExitUsage;
}

int inputError(const std::string& message) {
    std::cerr << "filterstudio-cli: " << printable(message) << "\n";
    return kExitInput;
}

int backendError(const std::string& message) {
    std::cerr << "filterstudio-cli: " << printable(message) << "\n";
    return kExitBackend;
}

std::string cpuFallbackHint(const std::string& backendId) {
    return backendId == "cpu" ? std::string() : "; run it on the CPU with --backend cpu";
}

std::optional<double> parseFinite(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == nullptr || *end != '\0' || !std::isfinite(v)) return std::nullopt;
    return v;
}

bool OptionReader::next() {
    if (started_) ++index_;
    started_ = true;
    if (index_ >= args_.size()) return false;
    name_ = args_[index_];
    inlineValue_.reset();
    if (const std::size_t eq = name_.find('='); name_.rfind("--", 0) == 0 && eq != std::string::npos) {
        inlineValue_ = name_.substr(eq + 1);
        name_ = name_.substr(0, eq);
    }
    return true;
}

std::string OptionReader::value() {
    if (inlineValue_) return *inlineValue_;
    if (index_ + 1 >= args_.size()) throw UsageError{name_ + " needs a value"};
    return args_[++index_];
}

double OptionReader::number() {
    const std::string text = value();
    const std::optional<double> v = parseFinite(text);
    if (!v) throw UsageError{name_ + " needs a finite number, got '" + text + "'"};
    return *v;
}

void OptionReader::noValue() const {
    if (inlineValue_) throw UsageError{name_ + " takes no value"};
}

void OptionReader::unknown() const {
    const std::string& arg = args_[index_];
    if (arg.empty() || arg[0] != '-')
        // Most often the shell expanded an unquoted glob into several paths.
        throw UsageError{"unexpected argument '" + arg + "' for " + command_ +
                         ": every value follows its option; an unquoted glob (-i shots/*.png) is expanded by the "
                         "shell into many paths, so quote it (-i 'shots/*.png')"};
    throw UsageError{"unknown option '" + arg + "' for " + command_};
}

std::uint64_t readMaxPixels(OptionReader& reader) {
    const double v = reader.number();
    if (v < 1 || v != std::floor(v) || v > 1e18) throw UsageError{"--max-pixels needs a positive whole number"};
    return static_cast<std::uint64_t>(v);
}

bool samePath(const std::string& a, const std::string& b) {
    namespace fsys = std::filesystem;
    std::error_code ec;
    if (fsys::exists(a, ec) && fsys::exists(b, ec)) return fsys::equivalent(a, b, ec);
    return fsys::weakly_canonical(a, ec) == fsys::weakly_canonical(b, ec);
}

int checkOutputFile(const std::string& path, bool overwrite) {
    const files::OutputCheck check = files::checkOutput(path);
    if (check.status == files::OutputCheck::Status::Refused) return inputError(path + ": " + check.problem);
    if (check.status == files::OutputCheck::Status::Exists && !overwrite)
        return inputError(path + ": exists; pass --overwrite to replace it");
    return kExitOk;
}

int loadKernel(const std::string& text, FilterSpec& spec) {
    namespace fsys = std::filesystem;
    std::error_code ec;
    // Anything at that path (a broken link or a loop included) is a file to read, so its
    // error names what is wrong there; a folder is one only when it is named .json.
    const bool onDisk = fsys::exists(fsys::symlink_status(text, ec));
    const bool isJson = lowerExtension(text) == ".json";
    if ((onDisk && (isJson || !fsys::is_directory(text, ec))) || isJson) {
#if defined(FS_HAVE_KERNEL_FILES)
        std::string why;
        if (!loadKernelFile(text, spec, &why)) return inputError(why.rfind(text, 0) == 0 ? why : text + ": " + why);
        return kExitOk;
#else
        return usageError(text + ": this build has no JSON kernel file support (built without nlohmann-json)");
#endif
    }
    std::string why;
    if (!makePreset(text, spec, &why)) return usageError(why);
    return kExitOk;
}

int noSuchBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id, bool suggestCpu) {
    std::string known;
    for (const auto& b : backends) known += (known.empty() ? "" : ", ") + b->id();
    // A backend this binary was built without is unavailable here; any other name is a typo.
    if (isKnownBackendId(id))
        return backendError("no backend '" + id + "' in this build (have: " + known + ")" +
                            (suggestCpu ? cpuFallbackHint(id) : std::string()));
    return usageError("no backend '" + id + "' (FilterStudio has cpu, cuda and opencl; this build has " + known + ")");
}

int chooseBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id, std::string& mode,
                  Backend*& chosen, bool suggestCpu) {
    chosen = nullptr;
    Backend* backend = nullptr;
    for (const auto& b : backends)
        if (b->id() == id) backend = b.get();
    if (!backend) return noSuchBackend(backends, id, suggestCpu);
    if (!backend->available())
        return backendError(id + " is unavailable: " + backend->unavailableReason() +
                            (suggestCpu ? cpuFallbackHint(id) : std::string()));
    const std::vector<ModeInfo> modes = backend->modes();
    if (mode.empty())
        if (const std::optional<ModeInfo> preferred = backend->findMode(backend->defaultMode()); preferred && preferred->available)
            mode = preferred->id;
    if (mode.empty()) {
        for (const ModeInfo& m : modes)
            if (m.available) {
                mode = m.id;
                break;
            }
        if (mode.empty()) return backendError(id + " has no available mode");
    } else {
        const ModeInfo* found = nullptr;
        std::string known;
        for (const ModeInfo& m : modes) {
            if (m.id == mode) found = &m;
            known += (known.empty() ? "" : ", ") + m.id;
        }
        if (!found) return usageError(id + " has no mode '" + mode + "' (have: " + known + ")");
        if (!found->available) return backendError(id + "/" + mode + " is unavailable: " + found->unavailableReason);
    }
    chosen = backend;
    return kExitOk;
}

namespace {

// A number that fits a 32-bit float, as the filter stores it (1e39 would become infinity).
float readFloat(OptionReader& reader) {
    const double v = reader.number();
    if (std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
        throw UsageError{reader.name() + " must fit a 32-bit float (at most 3.4e38 in size)"};
    return static_cast<float>(v);
}

}  // namespace

bool SpecOverrides::read(OptionReader& reader) {
    const std::string& name = reader.name();
    if (name == "--border") border = reader.value();
    else if (name == "--depth") {
        depth = reader.value();
        if (*depth != "same" && *depth != "f32") throw UsageError{"--depth must be 'same' or 'f32', not '" + *depth + "'"};
    } else if (name == "--output-size") {
        const std::string text = reader.value();
        OutputSize parsed = OutputSize::Same;
        if (!parseOutputSize(text, parsed))
            throw UsageError{"--output-size must be 'same' or 'valid', not '" + text + "'"};
        outputSize = parsed;
    } else if (name == "--scale") scale = readFloat(reader);
    else if (name == "--offset") offset = readFloat(reader);
    else if (name == "--abs") {
        reader.noValue();
        absolute = true;
    } else if (name == "--filter-alpha") {
        reader.noValue();
        filterAlpha = true;
    } else return false;
    return true;
}

int SpecOverrides::applyTo(FilterSpec& spec) const {
    if (border) {
        std::string why;
        if (!parseBorder(*border, spec.border, &why)) return usageError(why);
    }
    if (depth) spec.output.floatOutput = *depth == "f32";
    if (scale) spec.output.scale = *scale;
    if (offset) spec.output.offset = *offset;
    if (absolute) spec.output.absolute = true;
    if (filterAlpha) spec.filterAlpha = true;
    if (outputSize) spec.outputSize = *outputSize;
    return kExitOk;
}

bool TransferOverrides::read(OptionReader& reader) {
    const std::string& name = reader.name();
    if (name == "--pinned") {
        reader.noValue();
        knobs.host = HostMemory::Pinned;
    } else if (name == "--serial") {
        reader.noValue();
        knobs.transfers = Transfers::Serial;
    } else if (name == "--device-memory") {
        const double mb = reader.number();
        if (mb < 1 || mb > 16777216 || mb != static_cast<double>(static_cast<long long>(mb)))
            throw UsageError{"--device-memory needs a whole number of megabytes from 1 to 16777216"};
        knobs.deviceBudgetBytes = static_cast<std::size_t>(mb) << 20;
    } else {
        return false;
    }
    return true;
}

bool LaunchOverrides::read(OptionReader& reader) {
    const std::string& name = reader.name();
    if (name == "--block" || name == "--per-thread") {
        const std::string text = reader.value();
        const bool block = name == "--block";
        if (!parseShape(text, block ? config.blockX : config.perThreadX, block ? config.blockY : config.perThreadY))
            throw UsageError{name + " needs " + (block ? "WxH" : "AxB") +
                             " with whole numbers from 1 to 4096 (e.g. " + (block ? "32x8" : "1x4") + "), not '" + text + "'"};
    } else if (name == "--halo") {
        const std::string text = reader.value();
        if (!parseHaloScheme(text, config.halo))
            throw UsageError{"--halo must be cooperative or per-thread (or default), not '" + text + "'"};
    } else if (name == "--radius") {
        const std::string text = reader.value();
        if (!parseRadiusPath(text, config.radius))
            throw UsageError{"--radius must be compiled or runtime (or default), not '" + text + "'"};
    } else if (name == "--layout") {
        const std::string text = reader.value();
        if (!parseChannelLayout(text, config.layout))
            throw UsageError{"--layout must be interleaved or planar, not '" + text + "'"};
    } else {
        return false;
    }
    return true;
}

std::string timingLine(const TimingRecord& timing) {
    std::string line = "timing " + timing.backend + "/" + timing.mode;
    if (!timing.launch.empty()) line += ", launch " + timing.launch;
    return line + ": " + timing.toString();
}

std::string launchReportLine(const std::string& backendId, const LaunchReport& r) {
    if (!r.ok()) return "launch: " + r.error;
    char numbers[320];
    std::snprintf(numbers, sizeof numbers,
                  "%d threads/block, grid %dx%d; %d registers/thread, %zu B shared/block; %d blocks = %d of %d warps per SM",
                  r.threadsPerBlock, r.gridX, r.gridY, r.registersPerThread, r.sharedBytesPerBlock, r.activeBlocksPerSM,
                  r.activeWarpsPerSM, r.maxWarpsPerSM);
    std::string line = "launch " + backendId + "/" + r.mode + ": " + r.config.toString();
    if (!r.kernel.empty()) line += "; kernel " + r.kernel;
    line += std::string("; ") + numbers;
    if (!r.limiter.empty()) line += " (limited by " + r.limiter + ")";
    return line;
}

}  // namespace fs::cli
