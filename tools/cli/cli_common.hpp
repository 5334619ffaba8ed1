#pragma once
// What every filterstudio-cli command shares: exit codes, error messages,
// option reading, kernel loading and backend/mode selection.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batch_job.hpp"
#include "fs/backend.hpp"
#include "fs/launch.hpp"
#include "fs/timing.hpp"

namespace fs::cli {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitInput = 3;
constexpr int kExitBackend = 4;

// Thrown for anything malformed on the command line; becomes exit code 2.
struct UsageError {
    std::string message;
};

int usageError(const std::string& message);    // prints, returns kExitUsage
int inputError(const std::string& message);    // prints, returns kExitInput
int backendError(const std::string& message);  // prints, returns kExitBackend
// "; run it on the CPU with --backend cpu" for any backend but the CPU: the way out of a GPU failure.
std::string cpuFallbackHint(const std::string& backendId);

std::optional<double> parseFinite(const std::string& text);

// Walks "--name value", "--name=value" and "-n value" arguments.
class OptionReader {
public:
    OptionReader(const std::vector<std::string>& args, std::string command) : args_(args), command_(std::move(command)) {}
    bool next();                                  // moves to the next option; false at the end
    const std::string& name() const { return name_; }
    std::string value();                          // the option's value; UsageError when missing
    double number();                              // a finite number; UsageError otherwise
    void noValue() const;                         // UsageError when a flag was given "=value"
    [[noreturn]] void unknown() const;            // UsageError naming the option and command

private:
    const std::vector<std::string>& args_;
    std::string command_;
    std::size_t index_ = 0;
    bool started_ = false;
    std::string name_;
    std::optional<std::string> inlineValue_;
};

// --max-pixels N: a positive whole number.
std::uint64_t readMaxPixels(OptionReader& reader);

bool samePath(const std::string& a, const std::string& b);
using batch::lowerExtension;

// A JSON file when the path exists or names a .json file; otherwise a preset.
// Returns an exit code (kExitOk on success) after printing any error.
int loadKernel(const std::string& text, FilterSpec& spec);

// Finds backend `id` and checks `mode` (empty: its first available mode, or
// with `preferFast` its default mode (ModeInfo::isDefault) when it has one; written
// back). Returns an exit code after printing any error.
// `suggestCpu`: name --backend cpu as the way out when the backend is missing or unavailable.
int chooseBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id, std::string& mode,
                  Backend*& chosen, bool preferFast = false, bool suggestCpu = true);

// The per-filter options apply and batch share: --border, --depth, --scale, --offset, --abs.
struct SpecOverrides {
    std::optional<std::string> border, depth;
    std::optional<float> scale, offset;
    bool absolute = false;
    // True when `reader`'s current option is one of these (and consumes it).
    bool read(OptionReader& reader);
    // Applies them; returns an exit code after printing any error.
    int applyTo(FilterSpec& spec) const;
};

// --block WxH, --per-thread AxB, --halo cooperative|per-thread, --radius
// compiled|runtime: the launch configuration apply hands to
// Backend::runWithLaunch (GPU backends; the others refuse anything but the default).
struct LaunchOverrides {
    LaunchConfig config;
    // True when `reader`'s current option is one of these (and consumes it); UsageError for a bad value.
    bool read(OptionReader& reader);
};

// "timing cuda/shared, launch 32x8 / 1x4: kernel 0.123 ms, total 1.234 ms" (the launch part only when the run had one).
std::string timingLine(const TimingRecord& timing);
// "launch cuda/shared: block 32x8, 1x4 per thread, ...; kernel shared f32 1ch r1 compiled; 256 threads/block,
// grid 60x15; 32 registers/thread, 4608 B shared/block; 6 blocks = 48 of 64 warps per SM (limited by registers)";
// a refused configuration gives "launch: <why>".
std::string launchReportLine(const std::string& backendId, const LaunchReport& report);

// Commands with their own files; each returns the process exit code.
int runBatch(const std::vector<std::string>& args);     // batch_command.cpp
int runPipeline(const std::vector<std::string>& args);  // pipeline_command.cpp
int runTune(const std::vector<std::string>& args);      // tune_command.cpp

// What `tune` prints (tune_command.cpp): one line per configuration, median ms,
// '*' and "best" on the fastest, "default" on the mode's own choice, "refused: why";
// then the best against the default (or where a cached result came from).
std::string tuneTable(const TuneResult& result);
std::string tuneVerdict(const TuneResult& result);

}  // namespace fs::cli
