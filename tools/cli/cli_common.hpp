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
#include "transfer_knobs.hpp"

namespace fs::cli {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitInput = 3;
constexpr int kExitBackend = 4;

// Thrown for anything malformed on the command line; becomes exit code 2.
struct UsageError {
    std::string message;
};

// `text` safe for a terminal: control characters (C0, DEL, C1) and malformed
// UTF-8 bytes become \xNN, so a kernel's name or a file name cannot send escape sequences;
// Unicode format controls (bidi overrides such as U+202E, zero-width characters) become \uNNNN.
std::string printable(const std::string& text);

// Each prints the message (through printable) and returns its exit code.
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
// Refuses, before any work, an output that exists (unless `overwrite`), is a
// symbolic link, is write-protected or is not a regular file. Returns an exit
// code after printing any error.
int checkOutputFile(const std::string& path, bool overwrite);
using batch::lowerExtension;

// A JSON file when the path exists or names a .json file; otherwise a preset.
// Returns an exit code (kExitOk on success) after printing any error.
int loadKernel(const std::string& text, FilterSpec& spec);

// The error for a backend id not in `backends`: exit 4 for one this build lacks
// (cuda without CUDA), 2 for a name FilterStudio does not know.
int noSuchBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id, bool suggestCpu);

// Finds backend `id` and checks `mode` (empty: the backend's default mode,
// Backend::defaultMode(), or its first available one when that one is not;
// written back). Returns an exit code after printing any error.
// `suggestCpu`: name --backend cpu as the way out when the backend is missing or unavailable.
int chooseBackend(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id, std::string& mode,
                  Backend*& chosen, bool suggestCpu = true);

// The per-filter options apply and batch share: --border, --depth, --output-size, --scale, --offset, --abs,
// --filter-alpha.
struct SpecOverrides {
    std::optional<std::string> border, depth;
    std::optional<OutputSize> outputSize;
    std::optional<float> scale, offset;
    bool absolute = false;
    bool filterAlpha = false;
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

// --pinned, --serial, --device-memory MB: the CUDA transfer lessons (services/transfer_knobs.hpp).
struct TransferOverrides {
    TransferKnobs knobs;
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
int runBench(const std::vector<std::string>& args);     // bench_command.cpp
int runBenchPresetCommand(const std::vector<std::string>& args);  // bench_preset_command.cpp (bench --preset)
int runBatch(const std::vector<std::string>& args);     // batch_command.cpp
int runPipeline(const std::vector<std::string>& args);  // pipeline_command.cpp
int runLayer(const std::vector<std::string>& args);     // layer_command.cpp
int runTune(const std::vector<std::string>& args);      // tune_command.cpp
int runExplain(const std::vector<std::string>& args);   // explain_command.cpp
int runVideo(const std::vector<std::string>& args);     // video_command.cpp

// What `tune` prints (tune_command.cpp): one line per configuration, median ms,
// '*' and "best" on the fastest, "default" on the mode's own choice, "refused: why";
// then the best against the default (or where a cached result came from).
std::string tuneTable(const TuneResult& result);
std::string tuneVerdict(const TuneResult& result);

// bench (bench_command.cpp): -i random:WxH:CHANNELS:DEPTH generates a seeded image.
struct RandomImageSpec {
    int width = 0, height = 0, channels = 1;
    Depth depth = Depth::U8;
};
bool isRandomImageSpec(const std::string& text);  // starts with "random:"
// False with a message naming the expected form for anything malformed.
bool parseRandomImageSpec(const std::string& text, RandomImageSpec& out, std::string& why);
// u8 and u16 over their full range, f32 in [0, 1); the same seed gives the same image.
Image makeRandomImage(const RandomImageSpec& spec, std::uint32_t seed);

struct RunStats {
    double median = 0, min = 0, max = 0, stddev = 0;  // stddev: sample (n - 1); 0 for one run
};
RunStats summarizeRuns(std::vector<double> ms);

// One mode's result: `time` is of the kernel part where every run reported one
// (timedPart "kernel"), else of the whole run ("total").
struct BenchRow {
    std::string backend, mode, kernel;
    int width = 0, height = 0, channels = 0;
    std::string depth, border;
    int repeats = 0;
    std::string timedPart;
    RunStats time;
    std::optional<double> uploadMs, kernelMs, downloadMs;  // medians; absent when the backend does not report them
    std::optional<double> totalMs;                         // median wall time of the whole run
    // Transfers only: upload + kernel + download, as if run one after the
    // other, and the duplex floor, the larger of the two copy directions'
    // times (an overlapped run cannot end before its busier copy direction).
    std::optional<double> serialSumMs() const;
    std::optional<double> duplexFloorMs() const;
    std::string device;
    // Where the image was: "resident" (kept on the device, kernel only),
    // "pipelined" (the CUDA engine's run of a host image, transfers in
    // overlapped pieces), "serial" (another device backend: upload, kernel,
    // download in turn) or "host" (the CPU, no device).
    std::string path;
    // Non-empty: the mode did not run, and why ("refused: ...", "unavailable: ..."); no times.
    std::string skipped;
};
std::string benchCsvHeader();
// A skipped row has status "skipped", its reason, and no times.
std::string benchCsvLine(const BenchRow& row);
// The printed table; `notRun` lists (mode, "skipped: why" or "failed: why") for modes without a row.
std::string benchTable(const std::vector<BenchRow>& rows, const std::vector<std::pair<std::string, std::string>>& notRun);

}  // namespace fs::cli
