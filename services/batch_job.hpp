#pragma once
// One batch job: every input image x every kernel, one output file per pair,
// named <image>__<kernel>.<ext>. Shared by `filterstudio-cli batch` and the
// studio's batch dialog: validate() finds every up-front problem before
// anything is written, run() loads one image at a time, filters it with all
// kernels through the backend's BatchRunner, reports progress after each
// step, and keeps going when one file fails. Part of fs_batch_job (needs
// fs_io, so only built with OpenCV).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fs/backend.hpp"
#include "fs/filter_spec.hpp"
#include "fs/io/image_io.hpp"

namespace fs::batch {

struct Kernel {
    std::string name;  // as the user gave it ("gaussian:5:1.2", "kernels/My Edge.json"); named in errors
    FilterSpec spec;
};

struct Options {
    std::vector<std::string> inputs;  // folders (their image files), globs with * ? [, or files
    std::vector<Kernel> kernels;
    std::string outDir;               // created when missing
    std::string format;               // output extension ("png", ".png"); empty: the input's, tif for f32 output
    bool overwrite = false;           // replace existing outputs; otherwise validate() refuses
    bool oneAtATime = false;          // one Backend::run per pair instead of the backend's batch runner
    std::uint64_t maxPixels = io::LoadOptions{}.maxPixels;  // larger images fail to load
};

// One input and the file each kernel writes for it (outputs[k] for kernels[k]).
struct Item {
    std::string input;
    std::vector<std::string> outputs;
};

struct Plan {
    enum class Problem {
        None,
        Usage,   // the options themselves are wrong (no inputs, a glob matching nothing, name clashes, ...)
        Output,  // outputs exist already and overwrite is off ("N output file(s) exist already (first: F)")
        Refused, // outputs that are never replaced: symbolic links, write-protected files, folders
    };
    Options options;  // format normalised (no leading dot)
    std::vector<Item> items;
    std::string error;
    Problem problem = Problem::None;
    bool ok() const { return error.empty(); }
};

// Expands the inputs and works out every output path. Refuses, before anything
// is written: no inputs or kernels, no output folder, a folder without images,
// a glob matching nothing, two kernels or two inputs that would write the
// same file, a float output to a format that cannot hold it, an output that
// would replace an input, existing outputs without `overwrite`, and outputs
// that are never replaced (symbolic links, write-protected files), with it or not.
Plan validate(const Options& options);

// What happened to one input.
struct FileResult {
    std::string input;
    std::size_t outputs = 0;            // files it should give (one per kernel)
    std::size_t written = 0;
    std::string loadError;              // set when the image could not be read (nothing was filtered)
    std::vector<std::string> problems;  // "<kernel>: <why>" or the save error, one per output not written
    bool ok() const { return loadError.empty() && problems.empty(); }
};

// Sent before each image (finished == nullptr, done images finished so far)
// and after it (finished points at its result, done counts it).
struct Progress {
    std::size_t done = 0;
    std::size_t total = 0;
    std::string currentFile;            // the input being worked on or just finished
    const FileResult* finished = nullptr;
};
// Called on the thread that runs run(). Returning false cancels: no further
// image is started; files already written stay (each is complete: saves go
// through a temporary file). A RunControl installed on that thread
// (fs/run_control.hpp) cancels too, also within an image's kernels.
using ProgressCallback = std::function<bool(const Progress&)>;

struct Summary {
    std::string error;      // the run did not start (validation, output folder); nothing written
    Plan::Problem problem = Plan::Problem::None;  // for a validation error
    std::string backend, mode;
    bool oneAtATime = false;
    std::size_t images = 0;        // inputs planned
    std::size_t kernels = 0;
    std::size_t imagesDone = 0;    // inputs loaded and filtered (their outputs may still have failed)
    std::size_t outputsWritten = 0;
    std::size_t failures = 0;      // inputs with any problem
    std::vector<FileResult> failed;
    bool cancelled = false;
    double seconds = 0.0;          // load, filter and save
    double filterSeconds = 0.0;    // the batch runner alone
    double outputPixels = 0.0;     // width x height summed over written outputs

    bool ok() const { return error.empty() && failures == 0 && !cancelled; }
    double imagesPerSecond() const;
    double megapixelsPerSecond() const;  // output pixels
    double filterImagesPerSecond() const;
    double filterMegapixelsPerSecond() const;
};

// Runs a validated plan (an invalid one comes back as Summary::error) with
// `backend` in `mode`, which the caller has checked is available. Blocks until
// done or cancelled: the GUI calls it from a worker thread.
Summary run(const Plan& plan, Backend& backend, const std::string& mode, const ProgressCallback& progress = {});

// "gaussian:5:1.2" -> "gaussian-5-1.2", "kernels/My Edge.json" -> "My-Edge": the <kernel> part of output names.
std::string fileSafeKernelName(const std::string& kernel);
// "photo.JPG" -> ".jpg"
std::string lowerExtension(const std::string& path);
// ".png", ".jpg", ... (lower case): what a folder input picks up.
bool isImageExtension(const std::string& extension);

}  // namespace fs::batch
