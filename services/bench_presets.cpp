#include "bench_presets.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <random>
#include <string_view>
#include <tuple>

#include "backends.hpp"
#include "fs/batch.hpp"
#include "fs/host_info.hpp"
#include "fs/layer.hpp"
#include "layers.hpp"
#include "fs/presets.hpp"

namespace fs::bench {
namespace {

Contender contender(std::string label, std::string backend, ModePick pick, std::string mode = {}) {
    Contender c;
    c.label = std::move(label);
    c.backend = std::move(backend);
    c.pick = pick;
    c.mode = std::move(mode);
    return c;
}

// The course paper's four programs plus the parallel CPU mode it lacked.
std::vector<Contender> courseContenders() {
    return {contender("sequential", "cpu", ModePick::Reference),
            contender("CPU parallel", "cpu", ModePick::Default),
            contender("CUDA global, mask in constant memory", "cuda", ModePick::Named, "constant"),
            contender("CUDA shared memory", "cuda", ModePick::Named, "shared"),
            contender("OpenCL", "opencl", ModePick::Named, "filter2d")};
}

// The thesis' naive, naive-improved and shared kernels, the tuned mode, and
// its OpenCV CPU and OpenCL comparisons.
std::vector<Contender> thesisContenders() {
    return {contender("OpenCV CPU", "cpu", ModePick::Named, "opencv-native"),
            contender("CPU parallel", "cpu", ModePick::Default),
            contender("CUDA naive (global)", "cuda", ModePick::Named, "global"),
            contender("CUDA naive improved (constant)", "cuda", ModePick::Named, "constant"),
            contender("CUDA shared", "cuda", ModePick::Named, "shared"),
            contender("CUDA tuned (default)", "cuda", ModePick::Default),
            contender("OpenCV OpenCL", "opencl", ModePick::Named, "filter2d")};
}

std::vector<std::pair<int, int>> squares(std::initializer_list<int> sides) {
    std::vector<std::pair<int, int>> out;
    for (int s : sides) out.emplace_back(s, s);
    return out;
}

std::string borderText(const Border& b) {
    std::string text = borderModeName(b.mode);
    if (b.mode == BorderMode::Constant) {
        char value[32];
        std::snprintf(value, sizeof value, ":%g", static_cast<double>(b.value));
        text += value;
    }
    return text;
}

const char* shapeName(BatchShape s) {
    switch (s) {
    case BatchShape::OneToMany: return "1:N:N batch";
    case BatchShape::OneByOne: return "1:N:N one by one";
    case BatchShape::Layer: return "N:M:M layer";
    case BatchShape::LayerOneByOne: return "N:M:M one by one";
    case BatchShape::Single: break;
    }
    return "1:1:1";
}

// The mode a contender runs on `backend`, or why it cannot.
std::string resolveMode(const Contender& c, const Backend& backend, std::string& mode) {
    const std::vector<ModeInfo> modes = backend.modes();
    for (const ModeInfo& m : modes) {
        const bool wanted = c.pick == ModePick::Reference ? m.isReference
                            : c.pick == ModePick::Default ? m.isDefault
                                                          : m.id == c.mode;
        if (!wanted) continue;
        if (!m.available) return m.unavailableReason;
        mode = m.id;
        return {};
    }
    if (c.pick == ModePick::Default && !modes.empty()) {
        mode = backend.defaultMode();
        return {};
    }
    return backend.id() + " has no mode " + (c.pick == ModePick::Named ? "'" + c.mode + "'" : std::string("of that role"));
}

struct Samples {
    std::vector<double> upload, kernel, download, total;
    std::size_t runs = 0;
    void add(const TimingRecord& t) {
        ++runs;
        if (t.uploadMs) upload.push_back(*t.uploadMs);
        if (t.kernelMs) kernel.push_back(*t.kernelMs);
        if (t.downloadMs) download.push_back(*t.downloadMs);
        total.push_back(t.totalMs.value_or(0.0));
    }
    // A part some runs lacked is absent, as in `bench`.
    PartStats part(const std::vector<double>& v) const { return v.size() == runs ? statsOf(v) : PartStats{}; }
};

// Adds the parts of several runs that make up one timed sample.
TimingRecord sumOf(const std::vector<RunResult>& results, double wallMs) {
    TimingRecord t;
    auto add = [](std::optional<double>& to, const std::optional<double>& v, bool& all) {
        if (!v) all = false;
        else to = to.value_or(0.0) + *v;
    };
    bool upload = true, kernel = true, download = true;
    for (const RunResult& r : results) {
        add(t.uploadMs, r.timing.uploadMs, upload);
        add(t.kernelMs, r.timing.kernelMs, kernel);
        add(t.downloadMs, r.timing.downloadMs, download);
    }
    if (!upload) t.uploadMs.reset();
    if (!kernel) t.kernelMs.reset();
    if (!download) t.downloadMs.reset();
    t.totalMs = wallMs;
    return t;
}

}  // namespace

// The papers by title (in their own languages), as a reader looks them up; ../shared/papers holds the copies.
const char* const kCoursePaper = "\"Convolución paralela con GPU\" (Mesa Hidalgo and Arenas, Universidad de Granada, 2015)";
const char* const kThesis =
    "\"Využitie GPU paralelizovaných výpočtov na generovanie umelých dát\" (Beliančín, bachelor thesis, Žilina, 2018)";

std::vector<std::string> benchPresetNames() {
    return {"course-table1", "course-figure8", "thesis-widths", "thesis-batch", "tensor-cores"};
}

bool makeBenchPreset(const std::string& name, bool quick, BenchPreset& out, std::string* why) {
    BenchPreset p;
    p.name = name;
    p.quick = quick;
    if (name == "course-table1") {
        p.title = "Course paper, Table 1 and Figures 5-6: RGB u8 squares, 3x3/5x5/7x7 masks, mean and std of 5 runs";
        p.source = std::string(kCoursePaper) + ", Table 1 (times), Table 2 (standard deviations), Figures 5 and 6";
        p.sizes = quick ? squares({280, 560, 1120}) : squares({2800, 5600, 11200, 22400});
        p.channels = 3;
        p.depth = Depth::U8;
        p.maskSizes = {3, 5, 7};
        p.contenders = courseContenders();
        p.baseline = "sequential";
        p.warmup = quick ? 0 : 1;
        p.repeats = quick ? 2 : 5;
        // The paper's GTX 660 Ti had 2 GB: larger images go through strips, as in the paper.
        if (!quick) p.knobs.deviceBudgetBytes = std::size_t{2} << 30;
    } else if (name == "course-figure8") {
        p.title = "Course paper, Figure 8: outputs per thread k x k (k = 1..6), CUDA global memory, 3x3 mask, RGB u8";
        p.source = std::string(kCoursePaper) + ", section 8 and Figure 8 (3000x4000 RGB, 3x3 mask)";
        p.sizes = quick ? std::vector<std::pair<int, int>>{{400, 300}} : std::vector<std::pair<int, int>>{{4000, 3000}};
        p.channels = 3;
        p.depth = Depth::U8;
        p.maskSizes = {3};
        for (int k = 1; k <= 6; ++k) {
            Contender c = contender("CUDA global, " + std::to_string(k) + "x" + std::to_string(k) + " per thread",
                                    "cuda", ModePick::Named, "global");
            c.launch.perThreadX = c.launch.perThreadY = k;
            p.contenders.push_back(c);
        }
        p.baseline = p.contenders.front().label;
        p.warmup = quick ? 1 : 2;
        p.repeats = quick ? 3 : 20;
    } else if (name == "thesis-widths") {
        p.title = "Thesis, 1:1:1 tables: 1920x1200 gray f32, mask widths 1..15, 100 runs, kernel vs total";
        p.source = std::string(kThesis) + ", Tables 4-8, 16, 24-26";
        p.sizes = quick ? std::vector<std::pair<int, int>>{{480, 300}} : std::vector<std::pair<int, int>>{{1920, 1200}};
        p.channels = 1;
        p.depth = Depth::F32;
        p.maskSizes = {1, 3, 5, 7, 9, 11, 13, 15};
        p.contenders = thesisContenders();
        p.baseline = "OpenCV CPU";
        p.warmup = quick ? 1 : 5;
        p.repeats = quick ? 3 : 100;
    } else if (name == "thesis-batch") {
        p.title = "Thesis, 1:N:N and N:M:M tables: 1920x1200 gray f32; 8 masks on one image, and a 10 x 10 layer "
                  "(3 x 4 when quick), each at once and one by one";
        p.source = std::string(kThesis) + ", Tables 17-23 (1:N:N and N:M:M)";
        p.sizes = quick ? std::vector<std::pair<int, int>>{{480, 300}} : std::vector<std::pair<int, int>>{{1920, 1200}};
        p.channels = 1;
        p.depth = Depth::F32;
        p.maskSizes = {3, 7, 15};
        p.contenders = {contender("CPU parallel", "cpu", ModePick::Default),
                        contender("CUDA tuned (default)", "cuda", ModePick::Default)};
        p.shapes = {BatchShape::OneByOne, BatchShape::OneToMany, BatchShape::LayerOneByOne, BatchShape::Layer};
        p.batchKernels = 8;
        p.layerInputs = quick ? 3 : 10;
        p.layerOutputs = quick ? 4 : 10;
        p.baseline = "CPU parallel";
        p.warmup = 1;
        p.repeats = quick ? 2 : 5;
    } else if (name == "tensor-cores") {
        p.title = "Tensor cores: dense 9x9 to 31x31 masks in TF32 (approximate) against the FP32 modes, 8K gray f32";
        p.source = "not from the papers: gpu/README.md, \"The tensor mode\", and docs/teaching.md";
        p.sizes = quick ? std::vector<std::pair<int, int>>{{960, 540}} : std::vector<std::pair<int, int>>{{7680, 4320}};
        p.channels = 1;
        p.depth = Depth::F32;
        p.maskSizes = {9, 15, 23, 31};
        p.contenders = {contender("CUDA shared (FP32)", "cuda", ModePick::Named, "shared"),
                        contender("CUDA fft (FP32 transforms)", "cuda", ModePick::Named, "fft"),
                        contender("CUDA tensor (TF32, approximate)", "cuda", ModePick::Named, "tensor"),
                        contender("CUDA tuned (default)", "cuda", ModePick::Default)};
        p.baseline = "CUDA shared (FP32)";
        p.warmup = quick ? 1 : 2;
        p.repeats = quick ? 3 : 10;
    } else {
        if (why) {
            *why = "unknown benchmark preset '" + name + "'; known:";
            for (const std::string& n : benchPresetNames()) *why += " " + n;
        }
        return false;
    }
    p.border = Border{};
    out = std::move(p);
    return true;
}

PartStats statsOf(const std::vector<double>& ms) {
    PartStats s;
    if (ms.empty()) return s;
    s.present = true;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    for (double v : sorted) s.mean += v;
    s.mean /= static_cast<double>(n);
    double squares = 0.0;
    for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.stddev = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
    return s;
}

Image seededImage(int width, int height, int channels, Depth depth, std::uint32_t seed) {
    Image img(width, height, channels, depth);
    std::mt19937 rng(seed);
    const std::size_t samples = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
    const ImageView v = img.view();
    for (int y = 0; y < height; ++y) {
        switch (depth) {
        case Depth::U8:
            for (std::size_t i = 0; i < samples; ++i) v.row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(rng() >> 24);
            break;
        case Depth::U16:
            for (std::size_t i = 0; i < samples; ++i) v.row<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(rng() >> 16);
            break;
        case Depth::F32:
            for (std::size_t i = 0; i < samples; ++i) v.row<float>(y)[i] = static_cast<float>(rng() >> 8) * 0x1p-24f;
            break;
        }
    }
    return img;
}

FilterSpec presetMask(const BenchPreset& preset, int size, std::uint32_t seed) {
    FilterSpec spec;
    std::string why;
    switch (preset.masks) {
    case MaskKind::Box: makePreset("box:" + std::to_string(size), spec, &why); break;
    case MaskKind::Gaussian: makePreset("gaussian:" + std::to_string(size), spec, &why); break;
    case MaskKind::Dense: {
        // Weights in [0.5, 1.5), normalised: every tap counts and the mask is almost surely not rank 1.
        std::mt19937 rng(seed ^ static_cast<std::uint32_t>(size * 2654435761u));
        std::uniform_real_distribution<float> weight(0.5f, 1.5f);
        std::vector<float> w(static_cast<std::size_t>(size) * static_cast<std::size_t>(size));
        double sum = 0.0;
        for (float& v : w) sum += (v = weight(rng));
        for (float& v : w) v = static_cast<float>(v / sum);
        spec.name = "dense:" + std::to_string(size);
        spec.kernels = {Kernel(size, size, std::move(w))};
        break;
    }
    }
    spec.border = preset.border;
    return spec;
}

BenchRunResult runBenchPreset(const BenchPreset& preset, const std::vector<std::unique_ptr<Backend>>& backends,
                              std::uint32_t seed, const BenchProgress& progress) {
    BenchRunResult result;
    const int total = static_cast<int>(preset.sizes.size() * preset.maskSizes.size() * preset.contenders.size() *
                                       preset.shapes.size());
    const std::string driver = nvidiaModuleVersion();
    const std::string knobError = applyTransferKnobs(preset.knobs);
    struct RestoreKnobs {
        ~RestoreKnobs() { applyTransferKnobs(TransferKnobs{}); }
    } restore;
    auto emit = [&](BenchRecord record) {
        result.records.push_back(std::move(record));
        if (progress && !progress(static_cast<int>(result.records.size()), total, result.records.back()))
            result.cancelled = true;
        return !result.cancelled;
    };

    const bool resident = preset.knobs.transfers == Transfers::Resident;
    for (const auto& [width, height] : preset.sizes) {
        Image image;
        HostInput input;
        std::unique_ptr<ResidentImage> onDevice;  // Transfers::Resident: made for the first CUDA run of this size
        std::string imageError;
        try {
            image = seededImage(width, height, preset.channels, preset.depth, seed);
            input = hostInputFor(image.cview(), preset.knobs.host);
            if (!input.ok()) imageError = input.error;
            else if (input.memory) image = Image();  // the pinned copy is the one that runs
        } catch (const std::exception& e) {
            imageError = std::string("a ") + std::to_string(width) + "x" + std::to_string(height) + " image: " + e.what();
        }
        for (int maskSize : preset.maskSizes) {
            const FilterSpec spec = presetMask(preset, maskSize, seed);
            std::vector<FilterSpec> batch;
            for (int k = 0; k < preset.batchKernels; ++k)
                batch.push_back(presetMask(preset, maskSize, seed + static_cast<std::uint32_t>(k)));
            KernelBank bank;
            bank.name = "bench";
            bank.inputs = preset.layerInputs;
            bank.outputs = preset.layerOutputs;
            bank.border = preset.border;
            for (int k = 0; k < bank.inputs * bank.outputs; ++k)
                bank.kernels.push_back(presetMask(preset, maskSize, seed + 1000u + static_cast<std::uint32_t>(k)).kernels[0]);
            for (const Contender& c : preset.contenders)
                for (BatchShape shape : preset.shapes) {
                    BenchRecord r;
                    r.preset = preset.name;
                    r.contender = c.label;
                    r.backend = c.backend;
                    r.shape = shapeName(shape);
                    r.width = width;
                    r.height = height;
                    r.channels = preset.channels;
                    r.depth = preset.depth;
                    r.maskSize = maskSize;
                    const bool layer = shape == BatchShape::Layer || shape == BatchShape::LayerOneByOne;
                    r.masks = shape == BatchShape::Single ? 1 : layer ? bank.inputs * bank.outputs : preset.batchKernels;
                    // Images read and written, for GB/s.
                    const int imagesMoved = shape == BatchShape::Single ? 2 : layer ? bank.inputs + bank.outputs : 1 + r.masks;
                    r.border = borderText(preset.border);
                    if (!c.launch.isDefault()) r.launch = c.launch.toString();
                    r.hostMemory = hostMemoryName(preset.knobs.host);
                    r.transfers = transfersName(preset.knobs.transfers);
                    r.deviceBudgetMB = preset.knobs.deviceBudgetBytes >> 20;
                    r.seed = seed;
                    r.warmup = preset.warmup;
                    r.repeats = preset.repeats;
                    Backend* backend = findBackend(backends, c.backend);
                    std::string mode;
                    std::unique_ptr<LayerRunner> layerRunner;
                    if (shape == BatchShape::Layer && backend) layerRunner = makeLayerRunner(backend->id());
                    if (!imageError.empty()) r.error = "failed: " + imageError;
                    else if (shape == BatchShape::Layer && backend && !layerRunner)
                        r.error = "skipped: " + c.backend + " has no layer runner";
                    else if (!backend) r.error = "skipped: " + c.backend + " is not built into this FilterStudio";
                    else if (!backend->available()) r.error = "skipped: " + backend->unavailableReason();
                    else if (std::string why = resolveMode(c, *backend, mode); !why.empty()) r.error = "skipped: " + why;
                    else if (backend->id() == "cuda" && !knobError.empty()) r.error = "skipped: " + knobError;
                    else if (backend->id() == "cuda" && resident && shape != BatchShape::Single)
                        r.error = "skipped: a resident image is timed in single runs only";
                    else if (!c.launch.isDefault()) {
                        const LaunchReport report = backend->describeLaunch(spec, width, height, preset.depth,
                                                                            preset.channels, mode, c.launch);
                        if (!report.ok()) r.error = "skipped: refused: " + report.error;
                        else if (!backend->hasLaunchConfig()) r.error = "skipped: " + c.backend + " has no launch configuration";
                    }
                    r.skipped = !r.ok() && imageError.empty();
                    if (backend) {
                        r.device = backend->id() == "cpu" ? cpuModelName() : backend->displayName();
                        if (backend->id() == "cuda") r.driver = driver;
                    }
                    r.mode = mode;
                    const bool runsResident = resident && r.ok() && backend->id() == "cuda";
                    if (runsResident && !onDevice) onDevice = std::make_unique<ResidentImage>(input.view);
                    if (runsResident && !onDevice->error().empty()) r.error = "failed: " + onDevice->error();
                    if (r.ok()) {
                        Samples samples;
                        std::unique_ptr<BatchRunner> runner;
                        if (shape == BatchShape::OneToMany) runner = backend->makeBatchRunner();
                        for (int i = 0; i < preset.warmup + preset.repeats && r.ok(); ++i) {
                            std::vector<RunResult> runs;
                            const auto start = std::chrono::steady_clock::now();
                            if (runsResident)
                                runs.push_back(onDevice->run(spec, mode, c.launch));
                            else if (shape == BatchShape::Single)
                                runs.push_back(c.launch.isDefault() ? backend->run(spec, input.view, mode)
                                                                    : backend->runWithLaunch(spec, input.view, mode, c.launch));
                            else if (shape == BatchShape::OneToMany) runs = runner->runSpecs(input.view, batch, mode);
                            else if (shape == BatchShape::OneByOne)
                                for (const FilterSpec& s : batch) runs.push_back(backend->run(s, input.view, mode));
                            else {
                                const std::vector<ConstImageView> views(static_cast<std::size_t>(bank.inputs), input.view);
                                LayerResult lr = shape == BatchShape::Layer ? layerRunner->run(bank, views)
                                                                            : runLayerOneByOne(*backend, mode, bank, views);
                                RunResult asRun;
                                asRun.timing = lr.timing;
                                asRun.error = lr.error;
                                runs.push_back(std::move(asRun));
                            }
                            const double wall =
                                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                            for (const RunResult& run : runs)
                                if (!run.ok()) r.error = "failed: " + run.error;
                            if (!r.ok() || i < preset.warmup) continue;
                            if (runs.size() == 1) {
                                TimingRecord t = runs.front().timing;
                                if (!t.totalMs) t.totalMs = wall;
                                samples.add(t);
                            } else {
                                samples.add(sumOf(runs, wall));
                            }
                        }
                        if (r.ok()) {
                            r.upload = samples.part(samples.upload);
                            r.kernel = samples.part(samples.kernel);
                            r.download = samples.part(samples.download);
                            r.total = samples.part(samples.total);
                            const double ms = r.kernel.present ? r.kernel.mean : r.total.mean;
                            if (ms > 0) {
                                const double pixels = static_cast<double>(width) * height;
                                const double samplesPerImage = pixels * preset.channels;
                                const double bytes =
                                    samplesPerImage * static_cast<double>(depthBytes(preset.depth)) * imagesMoved;
                                const double flops = 2.0 * maskSize * maskSize * samplesPerImage * r.masks;
                                r.gbps = bytes / (ms * 1e-3) / 1e9;
                                r.gflops = flops / (ms * 1e-3) / 1e9;
                            }
                        }
                    }
                    if (!emit(std::move(r))) {
                        fillSpeedups(result.records, preset.baseline);
                        return result;
                    }
                }
        }
    }
    fillSpeedups(result.records, preset.baseline);
    return result;
}

void fillSpeedups(std::vector<BenchRecord>& records, const std::string& baseline) {
    std::map<std::tuple<int, int, int, std::string>, double> base;
    for (const BenchRecord& r : records)
        if (r.ok() && r.contender == baseline && r.total.mean > 0)
            base[{r.width, r.height, r.maskSize, r.shape}] = r.total.mean;
    for (BenchRecord& r : records) {
        r.speedup.reset();
        const auto it = base.find({r.width, r.height, r.maskSize, r.shape});
        if (r.ok() && it != base.end() && r.total.mean > 0) r.speedup = it->second / r.total.mean;
    }
}

namespace {

std::string number(double v, const char* format = "%.4f") {
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string partFields(const PartStats& p) {
    if (!p.present) return ",,,,";
    return number(p.mean) + "," + number(p.stddev) + "," + number(p.min) + "," + number(p.max) + "," + number(p.median);
}

}  // namespace

std::string csvField(const std::string& text) {
    // A spreadsheet runs a cell that begins with = + - @ (or a tab or CR) as a formula: such a
    // cell gets a leading ' and quotes, as OWASP's advice on CSV injection says.
    const bool formula = !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
    if (!formula && text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = formula ? "\"'" : "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string benchRecordsCsvHeader() {
    std::string header = "preset,contender,backend,mode,launch,shape,width,height,channels,depth,border,mask,masks,"
                         "host_memory,transfers,device_budget_mb,seed,warmup,repeats";
    for (const char* part : {"upload", "kernel", "download", "total"})
        for (const char* stat : {"mean_ms", "std_ms", "min_ms", "max_ms", "median_ms"})
            header += std::string(",") + part + "_" + stat;
    return header + ",speedup,gb_per_s,gflop_per_s,device,driver,error";
}

std::string benchRecordCsvLine(const BenchRecord& r) {
    std::string line;
    for (const std::string& field :
         {csvField(r.preset), csvField(r.contender), csvField(r.backend), csvField(r.mode), csvField(r.launch),
          csvField(r.shape), std::to_string(r.width), std::to_string(r.height), std::to_string(r.channels),
          std::string(depthName(r.depth)), csvField(r.border), std::to_string(r.maskSize), std::to_string(r.masks),
          r.hostMemory, r.transfers, std::to_string(r.deviceBudgetMB), std::to_string(r.seed),
          std::to_string(r.warmup), std::to_string(r.repeats), partFields(r.upload), partFields(r.kernel),
          partFields(r.download), partFields(r.total), r.speedup ? number(*r.speedup, "%.3f") : std::string(),
          r.gbps ? number(*r.gbps, "%.3f") : std::string(), r.gflops ? number(*r.gflops, "%.3f") : std::string(),
          csvField(r.device), csvField(r.driver), csvField(r.error)})
        line += (line.empty() ? "" : ",") + field;
    return line;
}

std::string benchRecordsCsv(const std::vector<BenchRecord>& records) {
    std::string text = benchRecordsCsvHeader() + "\n";
    for (const BenchRecord& r : records) text += benchRecordCsvLine(r) + "\n";
    return text;
}

std::string cpuModelName() {
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);) {
        if (line.rfind("model name", 0) != 0) continue;
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::size_t start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos) return line.substr(start);
    }
    return "CPU (model unknown)";
}

}  // namespace fs::bench
