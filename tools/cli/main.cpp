// filterstudio-cli: apply a filter to an image file with any backend and mode,
// run many filters over many files (batch) or a chain of steps (pipeline),
// time modes (bench) or a GPU mode's launch configurations (tune), say which
// kernel would run and why (explain), list presets, list backends.
// Exit codes: 0 ok, 2 usage, 3 input or output file error, 4 backend unavailable or failed.
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/core/version.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "backends.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"
#include "fs/kernel_file.hpp"
#include "fs/presets.hpp"

namespace {

using namespace fs::cli;

const char* const kUsage = R"(filterstudio-cli: convolution filters on image files

Usage:
  filterstudio-cli apply -i IN -o OUT -k KERNEL [options]
  filterstudio-cli batch -i DIR_OR_GLOB -k K1 [-k K2 ...] -o OUTDIR [options]
  filterstudio-cli pipeline -i IN -o OUT -p PIPELINE.json [--backend ID] [--mode MODE] [--overwrite]
  filterstudio-cli layer -i IN1 [-i IN2 ...] -b BANK.json -o OUTDIR [--backend cpu|cuda] [--compare]
  filterstudio-cli tune -i IN -k KERNEL [--backend cuda] [--mode MODE] [--repeats N] [--no-cache]
  filterstudio-cli tune --reset [--backend cuda]
  filterstudio-cli explain -i IN -k KERNEL [--backend ID] [--mode MODE] [options]
  filterstudio-cli explain --rules [--backend cuda]
  filterstudio-cli video -i IN -o OUT -k KERNEL [--backend ID] [--mode MODE] [--max-frames N] [--overwrite]
  filterstudio-cli bench -i IN -k KERNEL [--backend ID] [--mode M[,M...] | --all-modes] [--resident]
                   [--repeats N] [--warmup W] [--csv FILE [--overwrite]] [options]
  filterstudio-cli bench --preset NAME [--quick] [--csv FILE] [--plots DIR] [--seed S] [--overwrite]
                   [--pinned] [--serial | --resident] [--device-memory MB]
  filterstudio-cli kernels          list the preset kernels
  filterstudio-cli modes            list backends, their devices, modes and availability
  filterstudio-cli --version | --help

KERNEL is a preset (sobel-x, gaussian:5:1.2, ... see `kernels`) or a JSON
kernel file (format "filterstudio-kernel", version 1).

apply options:
  -i, --input IN       image to read (png, jpg, tif incl. 16-bit and float, bmp, ppm/pgm, webp)
  -o, --output OUT     image to write; never the input file. Written only when
                       everything succeeded. The extension picks the format.
  --overwrite          replace OUT when it exists (default: refuse before running).
                       A symbolic link, a write-protected file or anything but a
                       regular file at OUT is refused even then; no other file is
                       ever written (temporary files get random names beside OUT)
  -k, --kernel KERNEL  preset name or kernel JSON file
  --backend ID         cpu (default), cuda, opencl or opencl-cpu when built in (see `modes`)
  --mode MODE          a mode of that backend (default: the backend's default mode,
                       marked "default" by `modes`)
  --border B           replicate | reflect101 | constant[:V] | wrap (default: the kernel's, reflect101)
  --depth same|f32     same: round and saturate to the input depth (default);
                       f32: the raw float result, written as a 32-bit float TIFF
  --output-size S      same: as large as the input, the border fills in (default);
                       valid: only pixels whose whole window is inside the image,
                       (W-kw+1) x (H-kh+1), so the border never reaches the result
  --scale S            multiply the result by S (applied before --offset)
  --offset O           add O to the result
  --abs                take the absolute value after scale and offset
  --filter-alpha       images with alpha (RGBA): filter alpha like the colours;
                       by default the result keeps the input's alpha
  --max-pixels N       refuse images larger than N pixels (default 268435456)
  --verbose, -v        also print how the mode launches (GPU: block, grid, registers,
                       shared memory, occupancy)

launch options for apply (GPU backends only; see `modes`; the others refuse them):
  --block WxH          threads per block, e.g. 32x8
  --per-thread AxB     outputs each thread computes, e.g. 1x4
  --halo H             cooperative | per-thread: how mode shared loads its tile's border
  --radius R           compiled | runtime: kernel radius as a template parameter or read at run time
  --layout L           interleaved | planar: filter the channels as stored, or split into one
                       plane per channel first (timed apart as "planes split+merge")
  A configuration the device cannot run is refused with the reason (exit code 4).
  --pinned             copy the input to page-locked host memory first (uploads skip
                       the staging copy); default pageable
  --serial             upload, filter and download the whole image one after the
                       other; default overlapped in pieces on several streams
  --device-memory MB   the most device memory a run may hold; larger images go
                       through strips with halos (as the course paper's 2 GB GPU)

batch options (also --backend, --mode, --border, --depth, --output-size, --scale, --offset,
--abs, --filter-alpha, --max-pixels as for apply, applied to every kernel):
  -i, --input DIR_OR_GLOB  a folder (its image files), a quoted glob ('shots/*.png')
                       or a file; repeat for more
  -k, --kernel KERNEL  repeat for every kernel; each image x kernel gives one file
  -o, --output OUTDIR  folder for <image>__<kernel>.<ext> (created when missing);
                       kernel names are made filename-safe (gaussian:5:1.2 -> gaussian-5-1.2)
  --format EXT         output extension (default: the input's; tif for --depth f32)
  --overwrite          replace existing outputs (default: refuse before starting);
                       links and write-protected files are refused as for apply
  --one-at-a-time      one backend run per image x kernel instead of the backend's
                       batch runner (cpu: jobs over cores; cuda: one upload per image,
                       all kernels in one launch in mode auto), for comparison
  --mode defaults to the backend's default mode, as for apply.
  Progress goes to stderr; a file that fails is reported and the rest go on.
  Exit code 3 when any file failed.

pipeline: runs the steps of a pipeline file (format "filterstudio-pipeline",
version 1: convolve, abs, magnitude, threshold, normalize, grayscale, label)
and prints each step's time, and the object count when it has a label step.
Options -i IN, -o OUT, -p PIPELINE.json, --backend, --mode (as for batch),
--overwrite, --filter-alpha (every step), --max-pixels, as for apply.
A step that cannot take the image (label on a colour image) is an input error.
A pipeline ending in label gives f32 labels: write them to a .tif.

layer: N:M:M convolution, as in a convolution layer: output m is the sum over
the N inputs of input n filtered with kernel (n, m), then the bank's output
mapping once. BANK.json holds N x M kernels in the kernel-file conventions:
{"format": "filterstudio-kernel-bank", "version": 1, "name": ..., "inputs": N,
"outputs": M, "kernels": [[k(0,0), ..., k(0,M-1)], ...], "border": {...},
"output": {...}}, each k as in kernel files ({"weights": [[...]]}). The inputs
(one -i each, in order) must share size, channels and depth. Writes
OUTDIR/<name>-<m>.<ext> (--format EXT, default the first input's; tif for
float output). --backend cpu (rows over the cores) or cuda (one launch for all
outputs). --compare also runs the layer as N x M separate runs of --mode
added on the host, and prints both times and their largest difference.
Outputs with alpha keep the first input's alpha unless --filter-alpha.
--overwrite and --max-pixels as for batch.

tune: times every launch configuration of a GPU mode on one image (median of
--repeats timed launches each, default 15) and prints them with the best and the
mode's default marked; the best is kept in the tuning cache
($XDG_CONFIG_HOME/filterstudio/launch-tuning.json, or $FILTERSTUDIO_TUNE_CACHE),
which mode auto then uses. A result already cached is shown without timing unless
--no-cache. --backend defaults to cuda, --mode to auto; --border, --depth,
--scale, --offset, --abs, --max-pixels as for apply. tune --reset forgets every
tuned configuration and deletes the cache file.

explain: which mode and kernel a backend would run for KERNEL on an image of
IN's shape (a file, or random:WxH:CHANNELS:DEPTH), the dispatch rule that
chose them, the launch and any tuned configuration. Worked out on the host:
no GPU is needed and nothing runs. --backend defaults to cuda, --mode to the
backend's default (cuda: auto); --border, --depth, --output-size, --scale,
--offset, --abs as for apply. explain --rules prints the whole dispatch table.

video: filters every frame of a video file (any container and codec
OpenCV's FFmpeg reads: mp4, mkv, avi, webm) into OUT: .mkv is written
lossless (FFV1), .avi as MJPEG, .mp4 as MPEG-4, at the input's frame rate.
Prints frames per second and each frame's decode, filter (upload, kernel,
download where the backend reports them) and encode time. OUT is written only
when every frame went through; a stream that changes size, or ends before the
frames its container declares, is an input error. --max-frames N stops after
N frames. --backend, --mode, --border, --scale, --offset, --abs and
--overwrite as for apply.

bench: times modes of a backend on one image: --warmup runs (default 2), then
--repeats timed runs (default 10) per mode, the modes taking turns run by run;
prints the median, min, max and standard deviation of each mode's runs, and the
upload, kernel and download parts where the backend reports them. A run's time
is its kernel time where the backend reports one, else the whole run (the
table's "timed" column says which).
  -i, --input IN       an image file, or random:WxH:CHANNELS:DEPTH (CHANNELS 1, 3
                       or 4; DEPTH u8, u16 or f32) for a generated image
  --seed S             seed of the random image (default 1; printed)
  --mode M[,M...]      one or more modes (default: the backend's default mode)
  --all-modes          every mode of the backend; unavailable ones, and those that
                       refuse the filter, listed as skipped with the reason
  --resident           cuda: upload the image once and keep it on the device, as
                       the live preview does; only the kernel is timed
  --csv FILE           also write the rows as CSV (columns backend, mode, kernel,
                       width, height, channels, depth, border, repeats, median_ms,
                       min_ms, max_ms, std_ms, upload_ms, kernel_ms, download_ms,
                       device, path, status, reason); path: resident, pipelined,
                       serial or host; status: ok or skipped (with the reason);
                       an existing FILE is refused unless --overwrite
  --border, --depth, --output-size, --scale, --offset, --abs, --max-pixels as for apply.

bench --preset NAME: rebuilds a table of the papers FilterStudio was made from
(docs/teaching.md) on seeded random images; unavailable backends are listed
as skipped. Prints upload, kernel, download and total (mean and standard
deviation), the speed-up against the paper's baseline, GB/s and GFLOP/s.
  course-table1        course paper, Table 1 / Figures 5-6: 2800² to 22400² RGB
                       u8, dense 3x3/5x5/7x7 masks, sequential, CPU parallel,
                       CUDA constant-memory mask, CUDA shared, OpenCL; 5 runs
  thesis-widths        thesis 1:1:1 tables: 1920x1200 gray f32, widths 1..15,
                       100 runs; OpenCV CPU, CUDA naive/improved/shared/tuned, OpenCL
  thesis-batch         thesis 1:N:N tables: 8 masks of one width on one image,
                       in one batch against one by one
  --quick              small sizes and few runs (a first look; no GPU needed)
  --csv FILE           every row with device, driver, channels, depth, border and seed
  --plots DIR          DIR/NAME-time.png (log-log) and DIR/NAME-speedup.png;
                       needs the Qt build (the folder is created when missing)
  --repeats N, --warmup W  override the preset's; --seed S (default 1)
  --sizes LIST         other image sizes (2800,5600 or 1920x1200), e.g. to run a
                       long preset size by size
  --exclude LABEL      leave out a contender by its label (repeat for more), e.g.
                       --exclude sequential at 22400², where one run takes minutes
  --pinned, --serial, --device-memory MB  the CUDA transfer knobs, as for apply
  course-figure8       course paper, Figure 8: k x k outputs per thread, k = 1..6,
                       CUDA global memory (configurations a mode refuses are
                       listed as skipped with the reason)
  tensor-cores         not from the papers: 8K gray f32, dense 9x9 to 31x31, the
                       TF32 tensor mode (approximate) against CUDA shared, fft
                       and the tuned default

Colour images are filtered per channel in the file's BGR(A) order.
Inputs (-i, -p, kernel files) must be regular files (links are followed).
Exit codes: 0 ok, 2 usage error (including an unknown backend or mode, or a
number out of range), 3 input error (image, kernel, pipeline or output file),
4 backend unavailable or failed.
)";

struct ApplyOptions {
    std::string input, output, kernel, backend = "cpu", mode;
    SpecOverrides overrides;
    LaunchOverrides launch;
    TransferOverrides transfer;
    bool verbose = false;
    bool overwrite = false;
    std::uint64_t maxPixels = fs::io::LoadOptions{}.maxPixels;
};

// Throws UsageError for anything malformed on the command line.
ApplyOptions parseApply(const std::vector<std::string>& args) {
    ApplyOptions o;
    OptionReader reader(args, "apply");
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.input = reader.value();
        else if (name == "-o" || name == "--output") o.output = reader.value();
        else if (name == "-k" || name == "--kernel") o.kernel = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--max-pixels") o.maxPixels = readMaxPixels(reader);
        else if (name == "--verbose" || name == "-v") {
            reader.noValue();
            o.verbose = true;
        } else if (name == "--overwrite") {
            reader.noValue();
            o.overwrite = true;
        } else if (!o.overrides.read(reader) && !o.launch.read(reader) && !o.transfer.read(reader)) reader.unknown();
    }
    if (o.input.empty()) throw UsageError{"apply needs -i IN"};
    if (o.output.empty()) throw UsageError{"apply needs -o OUT"};
    if (o.kernel.empty()) throw UsageError{"apply needs -k KERNEL"};
    return o;
}

int runApply(const std::vector<std::string>& args) {
    ApplyOptions o;
    try {
        o = parseApply(args);
    } catch (const UsageError& e) {
        return usageError(e.message);
    }

    fs::FilterSpec spec;
    if (const int rc = loadKernel(o.kernel, spec); rc != kExitOk) return rc;
    if (const int rc = o.overrides.applyTo(spec); rc != kExitOk) return rc;
    if (spec.output.floatOutput && lowerExtension(o.output) != ".tif" && lowerExtension(o.output) != ".tiff")
        return usageError("--depth f32 writes a 32-bit float TIFF: " + o.output + " must end in .tif or .tiff");
    if (samePath(o.input, o.output))
        return usageError(o.output + ": the output would overwrite the input; choose another file");
    if (const int rc = checkOutputFile(o.output, o.overwrite); rc != kExitOk) return rc;
    if (const std::string why = fs::io::checkOutputPath(o.output, o.overwrite); !why.empty())
        return inputError(o.output + ": " + why);

    std::vector<std::unique_ptr<fs::Backend>> backends = fs::makeAllBackends();
    fs::Backend* backend = nullptr;
    std::string mode = o.mode;
    if (const int rc = chooseBackend(backends, o.backend, mode, backend); rc != kExitOk) return rc;

    fs::io::LoadOptions loadOptions;
    loadOptions.maxPixels = o.maxPixels;
    fs::io::LoadResult loaded = fs::io::loadImage(o.input, loadOptions);
    if (!loaded.ok()) return inputError(loaded.error);
    const fs::ConstImageView input = loaded.image.cview();
    if (!loaded.note.empty()) std::cout << printable(o.input) << ": " << printable(loaded.note) << "\n";
    if (std::string why = fs::validateRun(spec, input); !why.empty()) return inputError(o.kernel + ": " + why);
    if (spec.border.mode == fs::BorderMode::Constant && input.depth != fs::Depth::F32) {
        // The border value is a pixel of the input: it must be one its type can hold.
        const double v = spec.border.value, top = input.depth == fs::Depth::U8 ? 255.0 : 65535.0;
        char shown[32];
        std::snprintf(shown, sizeof shown, "%g", v);
        if (!(v >= 0 && v <= top && v == std::floor(v)))
            return usageError(std::string("constant border value ") + shown + " does not fit the " +
                              fs::depthName(input.depth) + " image: use a whole number from 0 to " +
                              std::to_string(static_cast<int>(top)));
    }
    // Everything about the output is known now: refuse before filtering, not after.
    const fs::Depth outputDepth = spec.output.floatOutput ? fs::Depth::F32 : input.depth;
    if (const fs::io::OutputFormatCheck format = fs::io::checkOutputFormat(o.output, outputDepth, input.channels); !format.ok())
        return inputError(o.output + ": " + format.refusal);
    else if (!format.warning.empty())
        std::cerr << "filterstudio-cli: warning: " << printable(o.output) << ": " << printable(format.warning) << "\n";

    // A launch the backend cannot take is refused with its reason before anything runs
    // (GPU backends check it against the device; the others take only the default).
    const fs::LaunchConfig& launch = o.launch.config;
    const fs::LaunchReport report =
        backend->describeLaunch(spec, input.width, input.height, input.depth, input.channels, mode, launch);
    if (!launch.isDefault() && (!report.ok() || !backend->hasLaunchConfig()))
        return backendError(o.backend + "/" + mode + " refused the launch configuration (" + launch.toString() +
                            "): " + (report.ok() ? "no launch configuration" : report.error) +
                            "; leave out --block, --per-thread, --halo, --radius and --layout for the mode's own choice");
    if (o.verbose) std::cout << launchReportLine(o.backend, report) << "\n";

    if (std::string why = fs::applyTransferKnobs(o.transfer.knobs); !why.empty()) return backendError(why);
    const fs::HostInput host = fs::hostInputFor(input, o.transfer.knobs.host);
    if (!host.ok()) return backendError(host.error);
    fs::RunResult result = backend->runWithLaunch(spec, host.view, mode, launch);
    if (!result.ok())
        return backendError(o.backend + "/" + mode + " failed: " + result.error +
                            (launch.isDefault() ? cpuFallbackHint(o.backend) : std::string()));

    std::string why;
    if (!fs::io::saveImage(o.output, result.output.cview(), fs::io::SaveOptions{o.overwrite}, &why)) return inputError(why);

    std::cout << "applied " << printable(spec.name) << " (" << spec.kernels[0].width << "x" << spec.kernels[0].height
              << (spec.kernels.size() > 1 ? " x2, magnitude" : "") << ", border " << fs::borderModeName(spec.border.mode)
              << (spec.outputSize == fs::OutputSize::Valid ? ", valid output" : "") << ") to " << printable(o.input) << " (" << input.width << "x" << input.height << ", " << input.channels << " ch, "
              << fs::depthName(input.depth) << ") -> " << printable(o.output) << " (" << result.output.width() << "x"
              << result.output.height() << ", " << fs::depthName(result.output.depth()) << ")\n";
    std::cout << timingLine(result.timing) << "\n";
    return kExitOk;
}

int listKernels() {
    for (const fs::PresetInfo& p : fs::listPresets()) std::printf("  %-28s %s\n", p.name.c_str(), p.summary.c_str());
#if defined(FS_HAVE_KERNEL_FILES)
    std::printf("or a path to a JSON kernel file (\"format\": \"filterstudio-kernel\", \"version\": %d)\n",
                fs::kKernelFileVersion);
#endif
    return kExitOk;
}

int listModes() {
    for (const auto& b : fs::makeAllBackends()) {
        const std::string why = b->unavailableReason();
        std::printf("%s  %s  %s\n", b->id().c_str(), b->displayName().c_str(),
                    why.empty() ? "available" : ("unavailable: " + why).c_str());
        for (const std::string& device : b->deviceDescriptions()) std::printf("  device: %s\n", device.c_str());
        for (const fs::ModeInfo& m : b->modes())
            std::printf("  %-14s %-12s %-10s %s\n", m.id.c_str(), m.available ? "available" : "unavailable",
                        m.isDefault ? "default" : m.isReference ? "reference" : "",
                        m.available ? m.description.c_str() : m.unavailableReason.c_str());
        std::printf("  launch: %s\n", b->hasLaunchConfig()
                                           ? "apply --block WxH --per-thread AxB --halo cooperative|per-thread "
                                             "--radius compiled|runtime --layout interleaved|planar; timed by `tune`"
                                           : "fixed (refuses --block, --per-thread, --halo, --radius, --layout "
                                             "and tune)");
    }
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    // Success prints nothing on stderr: OpenCV's own notes and the decoders' warnings stay
    // quiet (a file that fails to decode still gets its decoder's words in the error).
    cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
    fs::io::setDecoderWarningsQuiet(true);
    try {
        if (args.empty()) return usageError("no command given");
        const std::string& command = args[0];
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        if (command == "--help" || command == "-h" || command == "help") {
            std::cout << kUsage;
            return kExitOk;
        }
        if (command == "--version") {
            std::cout << "filterstudio-cli " << FS_VERSION << " (OpenCV " << CV_VERSION << ")\n";
            return kExitOk;
        }
        if (command == "apply") return runApply(rest);
        if (command == "batch") return runBatch(rest);
        if (command == "bench") return runBench(rest);
        if (command == "pipeline") return runPipeline(rest);
        if (command == "layer") return runLayer(rest);
        if (command == "tune") return runTune(rest);
        if (command == "explain") return runExplain(rest);
        if (command == "video") {
#if defined(FS_CLI_HAS_VIDEO)
            return runVideo(rest);
#else
            return usageError("video: this build has no OpenCV videoio (FFmpeg); install libopencv-videoio-dev");
#endif
        }
        if ((command == "kernels" || command == "modes") && !rest.empty())
            return usageError(command + " takes no arguments");
        if (command == "kernels") return listKernels();
        if (command == "modes") return listModes();
        return usageError("unknown command '" + command + "'");
    } catch (const std::bad_alloc&) {
        std::cerr << "filterstudio-cli: out of memory\n";
        return kExitInput;
    } catch (const std::exception& e) {
        std::cerr << "filterstudio-cli: " << e.what() << "\n";
        return kExitInput;
    }
}
