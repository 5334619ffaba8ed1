// filterstudio._core: the engine for Python. Backends, kernels and options are
// read as filterstudio-cli reads them and fail with its messages; the pure-Python
// package (python/filterstudio) adds the array protocols and Dask on top.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "arrays.hpp"
#include "backends.hpp"
#include "batch_job.hpp"
#include "batch_runners.hpp"
#include "bench_presets.hpp"
#include "errors.hpp"
#include "cuda_library.hpp"
#if defined(FS_HAVE_CUDA)
#include "fs/gpu/module.hpp"
#endif
#include "fs/io/image_io.hpp"
#include "fs/kernel_file.hpp"
#include "fs/layer.hpp"
#include "fs/pipeline.hpp"
#include "fs/presets.hpp"
#include "layers.hpp"
#include "specs.hpp"

using namespace pybind11::literals;

namespace fs::py {
namespace {

// One set of backends per process: the CUDA engine is a process-wide owner anyway,
// and every backend's run() may be called from several threads at once.
const std::vector<std::unique_ptr<Backend>>& backends() {
    static const std::vector<std::unique_ptr<Backend>> all = makeAllBackends();
    return all;
}

std::string cpuHint(const std::string& id) { return id == "cpu" ? "" : "; run it on the CPU with backend='cpu'"; }

// The CLI's chooseBackend: the backend and an available mode (the default when none is named).
Backend& chooseBackend(const std::string& id, std::string& mode) {
    Backend* backend = findBackend(backends(), id);
    if (!backend) {
        std::string known;
        for (const auto& b : backends()) known += (known.empty() ? "" : ", ") + b->id();
        if (isKnownBackendId(id)) throw DeviceError{"no backend '" + id + "' in this build (have: " + known + ")" + cpuHint(id)};
        throw ArgumentError{"no backend '" + id + "' (FilterStudio has cpu, cuda and opencl; this build has " + known + ")"};
    }
    if (!backend->available()) throw DeviceError{id + " is unavailable: " + backend->unavailableReason() + cpuHint(id)};
    const std::vector<ModeInfo> modes = backend->modes();
    if (mode.empty()) {
        if (const std::optional<ModeInfo> preferred = backend->findMode(backend->defaultMode()); preferred && preferred->available)
            mode = preferred->id;
        for (const ModeInfo& m : modes)
            if (mode.empty() && m.available) mode = m.id;
        if (mode.empty()) throw DeviceError{id + " has no available mode"};
        return *backend;
    }
    const ModeInfo* found = nullptr;
    std::string known;
    for (const ModeInfo& m : modes) {
        if (m.id == mode) found = &m;
        known += (known.empty() ? "" : ", ") + m.id;
    }
    if (!found) throw ArgumentError{id + " has no mode '" + mode + "' (have: " + known + ")"};
    if (!found->available) throw DeviceError{id + "/" + mode + " is unavailable: " + found->unavailableReason};
    return *backend;
}

pyb::object optionalMs(const std::optional<double>& v) { return v ? pyb::object(pyb::float_(*v)) : pyb::none(); }

pyb::dict timingDict(const TimingRecord& t) {
    return pyb::dict("backend"_a = t.backend, "mode"_a = t.mode, "launch"_a = t.launch, "kernel_variant"_a = t.kernel,
                     "host_prep_ms"_a = optionalMs(t.hostPrepMs), "upload_ms"_a = optionalMs(t.uploadMs),
                     "kernel_ms"_a = optionalMs(t.kernelMs), "layout_ms"_a = optionalMs(t.layoutMs),
                     "download_ms"_a = optionalMs(t.downloadMs), "total_ms"_a = optionalMs(t.totalMs));
}

double numberArg(const pyb::object& value, const char* name) {
    if (pyb::isinstance<pyb::bool_>(value) || !(pyb::isinstance<pyb::int_>(value) || pyb::isinstance<pyb::float_>(value) ||
                                               pyb::hasattr(value, "__float__")))
        throw pyb::type_error(std::string(name) + " must be a number, not " +
                              std::string(pyb::str(pyb::type::handle_of(value).attr("__name__"))));
    return pyb::float_(value).cast<double>();
}

std::string textArg(const pyb::object& value, const char* name) {
    if (!pyb::isinstance<pyb::str>(value))
        throw pyb::type_error(std::string(name) + " must be text, not " +
                              std::string(pyb::str(pyb::type::handle_of(value).attr("__name__"))));
    return value.cast<std::string>();
}

Overrides overridesOf(const pyb::object& border, const pyb::object& scale, const pyb::object& offset, bool absolute,
                      const std::string& depth, const std::string& outputSize, bool filterAlpha) {
    Overrides o;
    if (!border.is_none()) o.border = textArg(border, "border");
    if (!scale.is_none()) o.scale = numberArg(scale, "scale");
    if (!offset.is_none()) o.offset = numberArg(offset, "offset");
    o.absolute = absolute;
    o.depth = depth;
    o.outputSize = outputSize;
    o.filterAlpha = filterAlpha;
    return o;
}

Depth parseDepthArg(const std::string& text) {
    Depth d = Depth::U8;
    if (!parseDepth(text, d)) throw ArgumentError{"depth must be u8, u16 or f32, not '" + text + "'"};
    return d;
}

RunResult runChecked(Backend& backend, const FilterSpec& spec, ConstImageView input, const std::string& mode) {
    RunResult result;
    {
        pyb::gil_scoped_release release;
        result = backend.run(spec, input, mode);
    }
    if (!result.ok()) throw RunError{backend.id() + "/" + mode + " failed: " + result.error + cpuHint(backend.id())};
    return result;
}

pyb::tuple filter(const pyb::object& image, const pyb::object& kernel, const std::string& backendId, const pyb::object& modeArg,
                  const pyb::object& border, const pyb::object& scale, const pyb::object& offset, bool absolute,
                  const std::string& depth, const std::string& outputSize, bool filterAlpha) {
    FilterSpec spec = specOf(kernel);
    overridesOf(border, scale, offset, absolute, depth, outputSize, filterAlpha).applyTo(spec);
    std::string mode = modeArg.is_none() ? std::string() : textArg(modeArg, "mode");
    Backend& backend = chooseBackend(backendId, mode);
    const InputImage in = inputImage(image);
    if (std::string why = validateRun(spec, in.view); !why.empty()) throw ArgumentError{spec.name + ": " + why};
    RunResult result = runChecked(backend, spec, in.view, mode);
    return pyb::make_tuple(toArray(std::move(result.output), in.planar2d), timingDict(result.timing));
}

// A CUDA array (the package reads CuPy's or torch's protocol into `source`:
// data, height, width, channels, depth, pitch, stream) filtered on the device
// by the engine, with no host copy. allocate(height, width, channels, depth)
// makes the output with the input's library and returns (array, pointer,
// pitch). Returns (array, timing, keep_alpha, valid), where the package
// copies the input's alpha back and keeps the valid interior (top, left,
// height, width; None for "same") with that library, as finishRun does for
// host images.
pyb::tuple filterDevice(const pyb::dict& source, const pyb::object& allocate, const pyb::object& kernel,
                        const std::string& backendId, const pyb::object& modeArg, const pyb::object& border,
                        const pyb::object& scale, const pyb::object& offset, bool absolute, const std::string& depth,
                        const std::string& outputSize, bool filterAlpha) {
    FilterSpec spec = specOf(kernel);
    overridesOf(border, scale, offset, absolute, depth, outputSize, filterAlpha).applyTo(spec);
    std::string mode = modeArg.is_none() ? std::string() : textArg(modeArg, "mode");
    if (backendId != "cuda")
        throw ArgumentError{"a GPU array is filtered by backend 'cuda', not '" + backendId + "'"};
    Backend& backend = chooseBackend(backendId, mode);
    const ConstImageView view(reinterpret_cast<const void*>(source["data"].cast<std::uintptr_t>()),
                              source["width"].cast<int>(), source["height"].cast<int>(), source["channels"].cast<int>(),
                              parseDepthArg(source["depth"].cast<std::string>()), source["pitch"].cast<std::size_t>());
    if (std::string why = validateRun(spec, view); !why.empty()) throw ArgumentError{spec.name + ": " + why};
    const bool keepAlpha = keepsInputAlpha(spec, view);
    pyb::object valid = pyb::none();
    if (spec.outputSize == OutputSize::Valid)
        valid = pyb::make_tuple(spec.maxRadiusY(), spec.maxRadiusX(), spec.outputHeight(view.height),
                                spec.outputWidth(view.width));
    spec.outputSize = OutputSize::Same;  // the engine fills the padded result, as for host images

    const pyb::tuple made = allocate(view.height, view.width, view.channels, depthName(spec.outputDepth(view.depth)));
    TimingRecord timing;
    timing.backend = backend.id();
    timing.mode = mode;
    std::string error;
#if defined(FS_HAVE_CUDA)
    gpu::DeviceInput input{view.data, view.stride, view.width, view.height, view.channels, view.depth,
                           source["stream"].cast<std::uintptr_t>()};
    const gpu::DeviceOutput output{reinterpret_cast<void*>(made[1].cast<std::uintptr_t>()), made[2].cast<std::size_t>()};
    if (gpu::Module* cuda = cudaModule(&error)) {
        pyb::gil_scoped_release release;
        error = cuda->run(spec, input, mode, gpu::RunTarget::deviceMemory(output), timing, {});
    }
#else
    error = "this build has no CUDA engine";
#endif
    if (!error.empty()) throw RunError{backend.id() + "/" + mode + " failed: " + error};
    return pyb::make_tuple(made[0], timingDict(timing), keepAlpha, valid);
}

pyb::list modes() {
    pyb::list rows;
    for (const auto& b : backends()) {
        const std::string why = b->unavailableReason();
        for (const ModeInfo& m : b->modes())
            rows.append(pyb::dict("backend"_a = b->id(), "mode"_a = m.id, "available"_a = why.empty() && m.available,
                                  "reason"_a = !why.empty() ? why : m.unavailableReason, "default"_a = m.isDefault,
                                  "reference"_a = m.isReference, "approximate"_a = m.approximate,
                                  "description"_a = m.description));
    }
    return rows;
}

pyb::list backendList() {
    pyb::list rows;
    for (const auto& b : backends())
        rows.append(pyb::dict("backend"_a = b->id(), "name"_a = b->displayName(), "available"_a = b->available(),
                              "reason"_a = b->unavailableReason(), "devices"_a = b->deviceDescriptions(),
                              "default_mode"_a = b->defaultMode()));
    return rows;
}

pyb::list presets() {
    pyb::list rows;
    for (const PresetInfo& p : listPresets()) rows.append(pyb::dict("name"_a = p.name, "summary"_a = p.summary));
    return rows;
}

KernelObject makeKernel(const pyb::object& kernel, const pyb::object& border, const pyb::object& scale,
                        const pyb::object& offset, bool absolute, const std::string& depth, const std::string& outputSize,
                        bool filterAlpha) {
    KernelObject k{specOf(kernel)};
    overridesOf(border, scale, offset, absolute, depth, outputSize, filterAlpha).applyTo(k.spec);
    return k;
}

double median(std::vector<double> v) { return bench::statsOf(v).median; }

// As `filterstudio-cli bench`: warm-up runs, then timed rounds in which every
// mode runs once; a row per mode with the CLI's CSV columns.
pyb::list benchRows(const pyb::object& image, const pyb::object& kernel, const std::string& backendId,
                    const pyb::object& modesArg, int repeats, int warmup, const pyb::object& border, const pyb::object& scale,
                    const pyb::object& offset, bool absolute, const std::string& depth, const std::string& outputSize) {
    if (repeats < 1 || repeats > 100000) throw ArgumentError{"repeats needs a whole number from 1 to 100000"};
    if (warmup < 0 || warmup > 10000) throw ArgumentError{"warmup needs a whole number from 0 to 10000"};
    FilterSpec spec = specOf(kernel);
    overridesOf(border, scale, offset, absolute, depth, outputSize, false).applyTo(spec);
    std::vector<std::string> modes;
    Backend* backend = nullptr;
    if (modesArg.is_none() || (pyb::isinstance<pyb::str>(modesArg) && modesArg.cast<std::string>() == "all")) {
        std::string mode;
        backend = &chooseBackend(backendId, mode);
        if (modesArg.is_none()) modes.push_back(mode);
        else
            for (const ModeInfo& m : backend->modes())
                if (m.available) modes.push_back(m.id);
    } else {
        const auto names = pyb::isinstance<pyb::str>(modesArg) ? std::vector<std::string>{modesArg.cast<std::string>()}
                                                                : modesArg.cast<std::vector<std::string>>();
        if (names.empty()) throw ArgumentError{"modes needs at least one mode name"};
        for (std::string mode : names) {
            backend = &chooseBackend(backendId, mode);
            if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
        }
    }
    const InputImage in = inputImage(image);
    if (std::string why = validateRun(spec, in.view); !why.empty()) throw ArgumentError{spec.name + ": " + why};

    std::vector<std::vector<TimingRecord>> runs(modes.size());
    for (int round = 0; round < warmup + repeats; ++round)
        for (std::size_t i = 0; i < modes.size(); ++i) {
            RunResult r = runChecked(*backend, spec, in.view, modes[i]);
            if (round >= warmup) runs[i].push_back(r.timing);
        }
    const std::string device = backend->id() == "cpu" ? bench::cpuModelName() : backend->displayName();
    pyb::list rows;
    for (std::size_t i = 0; i < modes.size(); ++i) {
        const std::vector<TimingRecord>& rs = runs[i];
        const bool kernelTimed = std::all_of(rs.begin(), rs.end(), [](const TimingRecord& t) { return t.kernelMs.has_value(); });
        std::vector<double> times;
        for (const TimingRecord& t : rs) times.push_back(kernelTimed ? *t.kernelMs : t.totalMs.value_or(0.0));
        const bench::PartStats stats = bench::statsOf(times);
        auto part = [&rs](std::optional<double> TimingRecord::*p) -> pyb::object {
            std::vector<double> v;
            for (const TimingRecord& t : rs)
                if (t.*p) v.push_back(*(t.*p));
            return v.size() == rs.size() && !v.empty() ? pyb::object(pyb::float_(median(v))) : pyb::none();
        };
        rows.append(pyb::dict("backend"_a = backend->id(), "mode"_a = modes[i], "kernel"_a = spec.name,
                              "width"_a = in.view.width, "height"_a = in.view.height, "channels"_a = in.view.channels,
                              "depth"_a = depthName(in.view.depth), "border"_a = borderText(spec.border),
                              "repeats"_a = repeats, "timed"_a = kernelTimed ? "kernel" : "total",
                              "median_ms"_a = stats.median, "min_ms"_a = stats.min, "max_ms"_a = stats.max,
                              "std_ms"_a = stats.stddev, "upload_ms"_a = part(&TimingRecord::uploadMs),
                              "kernel_ms"_a = part(&TimingRecord::kernelMs), "download_ms"_a = part(&TimingRecord::downloadMs),
                              "total_ms"_a = part(&TimingRecord::totalMs), "device"_a = device));
    }
    return rows;
}

pyb::list benchPreset(const std::string& name, bool quick, std::uint32_t seed, const pyb::object& sizes) {
    bench::BenchPreset preset;
    std::string why;
    if (!bench::makeBenchPreset(name, quick, preset, &why)) throw ArgumentError{why};
    if (!sizes.is_none()) {
        preset.sizes.clear();
        for (const pyb::handle s : sizes) {
            if (pyb::isinstance<pyb::int_>(s)) preset.sizes.emplace_back(s.cast<int>(), s.cast<int>());
            else preset.sizes.push_back(s.cast<std::pair<int, int>>());
        }
        for (const auto& [w, h] : preset.sizes)
            if (w < 1 || h < 1 || w > 65536 || h > 65536) throw ArgumentError{"sizes must be from 1 to 65536"};
    }
    bench::BenchRunResult result;
    {
        pyb::gil_scoped_release release;
        result = bench::runBenchPreset(preset, backends(), seed);
    }
    bench::fillSpeedups(result.records, preset.baseline);
    auto stat = [](const bench::PartStats& s) -> pyb::object { return s.present ? pyb::object(pyb::float_(s.mean)) : pyb::none(); };
    auto optional = [](const std::optional<double>& v) -> pyb::object { return v ? pyb::object(pyb::float_(*v)) : pyb::none(); };
    pyb::list rows;
    for (const bench::BenchRecord& r : result.records)
        rows.append(pyb::dict("preset"_a = r.preset, "contender"_a = r.contender, "backend"_a = r.backend, "mode"_a = r.mode,
                              "shape"_a = r.shape, "width"_a = r.width, "height"_a = r.height, "channels"_a = r.channels,
                              "mask_size"_a = r.maskSize, "masks"_a = r.masks, "depth"_a = depthName(r.depth),
                              "border"_a = r.border, "repeats"_a = r.repeats, "upload_ms"_a = stat(r.upload),
                              "kernel_ms"_a = stat(r.kernel), "download_ms"_a = stat(r.download),
                              "total_ms"_a = stat(r.total), "total_std_ms"_a = r.total.present ? pyb::object(pyb::float_(r.total.stddev)) : pyb::none(),
                              "speedup"_a = optional(r.speedup), "gbps"_a = optional(r.gbps),
                              "gflops"_a = optional(r.gflops), "device"_a = r.device, "error"_a = r.error,
                              "skipped"_a = r.skipped));
    return rows;
}

std::string textOrJson(const pyb::object& arg, const char* what, bool& isFile) {
    isFile = false;
    if (pyb::isinstance<pyb::dict>(arg)) return pyb::module_::import("json").attr("dumps")(arg).cast<std::string>();
    if (pyb::isinstance<pyb::str>(arg) || pyb::hasattr(arg, "__fspath__")) {
        isFile = true;
        return pyb::module_::import("os").attr("fspath")(arg).cast<std::string>();
    }
    throw pyb::type_error(std::string(what) + " must be a file's path or a dict in the file's format");
}

pyb::tuple pipeline(const pyb::object& image, const pyb::object& pipelineArg, const std::string& backendId,
                    const pyb::object& modeArg, bool filterAlpha) {
    Pipeline p;
    std::string why;
    bool isFile = false;
    const std::string text = textOrJson(pipelineArg, "pipeline", isFile);
    if (isFile ? !loadPipelineFile(text, p, &why) : !parsePipelineJson(text, p, &why))
        throw ArgumentError{why};
    for (PipelineStep& step : p.steps) step.filter.filterAlpha = filterAlpha;
    std::string mode = modeArg.is_none() ? std::string() : textArg(modeArg, "mode");
    Backend& backend = chooseBackend(backendId, mode);
    const InputImage in = inputImage(image);
    PipelineResult result;
    {
        pyb::gil_scoped_release release;
        result = makePipelineRunnerFor(backend, mode)->run(p, in.view);
    }
    if (!result.ok()) {
        if (result.inputRejected) throw ArgumentError{result.error};
        throw RunError{result.error + cpuHint(backendId)};
    }
    pyb::list steps;
    for (const StepReport& s : result.steps) {
        pyb::dict step = timingDict(s.timing);
        step["label"] = s.label;
        steps.append(step);
    }
    pyb::dict info("steps"_a = steps, "object_count"_a = result.objectCount ? pyb::object(pyb::int_(*result.objectCount)) : pyb::none());
    // A pipeline that ends in one channel (grayscale, label) gives H x W, as cv2 does.
    const bool planar = result.output.channels() == 1 && (in.planar2d || in.view.channels != 1);
    return pyb::make_tuple(toArray(std::move(result.output), planar), info);
}

pyb::tuple layer(const pyb::list& images, const pyb::object& bankArg, const std::string& backendId) {
    KernelBank bank;
    std::string why;
    bool isFile = false;
    const std::string text = textOrJson(bankArg, "bank", isFile);
    if (isFile ? !loadBankFile(text, bank, &why) : !parseBankJson(text, bank, &why)) throw ArgumentError{why};
    std::string mode;
    Backend& backend = chooseBackend(backendId, mode);
    std::unique_ptr<LayerRunner> runner = makeLayerRunner(backend.id());
    if (!runner) throw ArgumentError{backendId + " has no layer runner; use backend='cpu' or 'cuda'"};
    std::vector<InputImage> inputs;
    std::vector<ConstImageView> views;
    for (const pyb::handle image : images) {
        inputs.push_back(inputImage(image, "each layer input"));
        views.push_back(inputs.back().view);
    }
    if (std::string problem = validateLayer(bank, views); !problem.empty()) throw ArgumentError{problem};
    LayerResult result;
    {
        pyb::gil_scoped_release release;
        result = runner->run(bank, views);
    }
    if (!result.ok()) throw RunError{backendId + " layer failed: " + result.error + cpuHint(backendId)};
    pyb::list outputs;
    for (Image& out : result.outputs) outputs.append(toArray(std::move(out), inputs.front().planar2d));
    return pyb::make_tuple(outputs, timingDict(result.timing));
}

pyb::array randomImage(int width, int height, int channels, const std::string& depth, std::uint32_t seed) {
    if (width < 1 || height < 1 || width > 65536 || height > 65536) throw ArgumentError{"width and height must be from 1 to 65536"};
    if (channels != 1 && channels != 3 && channels != 4) throw ArgumentError{"channels must be 1, 3 or 4"};
    const Depth d = parseDepthArg(depth);
    Image image;
    {
        pyb::gil_scoped_release release;
        image = bench::seededImage(width, height, channels, d, seed);
    }
    return toArray(std::move(image), channels == 1);
}

pyb::array readImage(const pyb::object& pathArg, std::uint64_t maxPixels) {
    const std::string path = pyb::module_::import("os").attr("fspath")(pathArg).cast<std::string>();
    io::LoadOptions options;
    options.maxPixels = maxPixels;
    io::LoadResult loaded;
    {
        pyb::gil_scoped_release release;
        loaded = io::loadImage(path, options);
    }
    if (!loaded.ok()) throw FileError{loaded.error};
    const bool gray = loaded.image.channels() == 1;
    return toArray(std::move(loaded.image), gray);
}

void writeImage(const pyb::object& pathArg, const pyb::object& image, bool overwrite) {
    const std::string path = pyb::module_::import("os").attr("fspath")(pathArg).cast<std::string>();
    const InputImage in = inputImage(image);
    std::string why;
    bool ok = false;
    {
        pyb::gil_scoped_release release;
        ok = io::saveImage(path, in.view, io::SaveOptions{overwrite}, &why);
    }
    if (!ok) throw FileError{why};
}

batch::Options batchOptions(const std::vector<std::string>& inputs, const pyb::list& kernels, const std::string& outDir,
                            const std::string& format, bool overwrite, std::uint64_t maxPixels, const Overrides& overrides) {
    batch::Options o;
    o.inputs = inputs;
    for (const pyb::handle k : kernels) {
        FilterSpec spec = specOf(k);
        overrides.applyTo(spec);
        o.kernels.push_back({kernelName(k, spec), std::move(spec)});
    }
    o.outDir = outDir;
    o.format = format;
    o.overwrite = overwrite;
    o.maxPixels = maxPixels;
    return o;
}

// The CLI batch's plan: every output path, or the reason nothing may start.
pyb::list batchPlan(const std::vector<std::string>& inputs, const pyb::list& kernels, const std::string& outDir,
                    const std::string& format, bool overwrite, const pyb::object& border, const pyb::object& scale,
                    const pyb::object& offset, bool absolute, const std::string& depth, const std::string& outputSize) {
    const batch::Options o = batchOptions(inputs, kernels, outDir, format, overwrite, io::LoadOptions{}.maxPixels,
                                          overridesOf(border, scale, offset, absolute, depth, outputSize, false));
    batch::Plan plan;
    {
        pyb::gil_scoped_release release;
        plan = batch::validate(o);
    }
    if (!plan.ok()) {
        if (plan.problem == batch::Plan::Problem::Usage) throw ArgumentError{plan.error};
        throw FileError{plan.error};
    }
    pyb::list items;
    for (const batch::Item& item : plan.items) items.append(pyb::make_tuple(item.input, item.outputs));
    return items;
}

// One input through the CLI batch (its naming, atomic saves and per-file
// reports); never raises for the file itself: its problems come back.
pyb::dict batchFile(const std::string& input, const pyb::list& kernels, const std::string& outDir, const std::string& backendId,
                    const pyb::object& modeArg, const std::string& format, bool overwrite, std::uint64_t maxPixels,
                    const pyb::object& border, const pyb::object& scale, const pyb::object& offset, bool absolute,
                    const std::string& depth, const std::string& outputSize) {
    const batch::Options o = batchOptions({input}, kernels, outDir, format, overwrite, maxPixels,
                                          overridesOf(border, scale, offset, absolute, depth, outputSize, false));
    std::string mode = modeArg.is_none() ? std::string() : textArg(modeArg, "mode");
    Backend& backend = chooseBackend(backendId, mode);
    batch::Summary summary;
    std::vector<std::string> outputs;
    {
        pyb::gil_scoped_release release;
        const batch::Plan plan = batch::validate(o);
        if (plan.ok()) {
            outputs = plan.items.front().outputs;
            summary = batch::run(plan, backend, mode);
        } else {
            summary.error = plan.error;
        }
    }
    std::vector<std::string> problems;
    std::string loadError = summary.error;
    for (const batch::FileResult& f : summary.failed) {
        if (!f.loadError.empty()) loadError = f.loadError;
        problems.insert(problems.end(), f.problems.begin(), f.problems.end());
    }
    const bool ok = loadError.empty() && problems.empty();
    return pyb::dict("input"_a = input, "outputs"_a = outputs, "written"_a = summary.outputsWritten, "ok"_a = ok,
                     "error"_a = loadError, "problems"_a = problems, "backend"_a = backend.id(), "mode"_a = mode,
                     "seconds"_a = summary.seconds);
}

}  // namespace
}  // namespace fs::py

PYBIND11_MODULE(_core, m) {
    using namespace fs::py;
    m.doc() = "FilterStudio's engine: convolution filters on NumPy images (see the filterstudio package)";

    static pyb::exception<DeviceError> deviceUnavailable(m, "DeviceUnavailable", PyExc_RuntimeError);
    static pyb::exception<RunError> filterError(m, "FilterError", PyExc_RuntimeError);
    pyb::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ArgumentError& e) {
            PyErr_SetString(PyExc_ValueError, e.message.c_str());
        } catch (const FileError& e) {
            PyErr_SetString(PyExc_OSError, e.message.c_str());
        } catch (const DeviceError& e) {
            PyErr_SetString(deviceUnavailable.ptr(), e.message.c_str());
        } catch (const RunError& e) {
            PyErr_SetString(filterError.ptr(), e.message.c_str());
        }
    });

    pyb::class_<KernelObject>(m, "Kernel", "A kernel with its border and output mapping (what filterstudio.kernel gives)")
        .def_property_readonly("name", [](const KernelObject& k) { return k.spec.name; })
        .def_property_readonly("weights",
                               [](const KernelObject& k) {
                                   pyb::list out;
                                   for (const fs::Kernel& w : k.spec.kernels) {
                                       pyb::array_t<float> a({w.height, w.width});
                                       std::copy(w.weights.begin(), w.weights.end(), a.mutable_data());
                                       out.append(a);
                                   }
                                   return out;
                               })
        .def_property_readonly("combine", [](const KernelObject& k) { return std::string(fs::combineName(k.spec.combine)); })
        .def_property_readonly("border", [](const KernelObject& k) { return borderText(k.spec.border); })
        .def_property_readonly("scale", [](const KernelObject& k) { return k.spec.output.scale; })
        .def_property_readonly("offset", [](const KernelObject& k) { return k.spec.output.offset; })
        .def_property_readonly("abs", [](const KernelObject& k) { return k.spec.output.absolute; })
        .def_property_readonly("radius", [](const KernelObject& k) {
            return std::make_pair(k.spec.maxRadiusY(), k.spec.maxRadiusX());
        }, "(rows, columns) of the largest kernel's reach")
        .def("to_json", [](const KernelObject& k) { return fs::kernelToJson(k.spec); }, "The kernel file's text")
        .def("__repr__", [](const KernelObject& k) {
            const fs::Kernel& w = k.spec.kernels.front();
            return "filterstudio.Kernel('" + k.spec.name + "', " + std::to_string(w.width) + "x" + std::to_string(w.height) +
                   (k.spec.kernels.size() > 1 ? " x2 magnitude" : "") + ", border " + borderText(k.spec.border) + ")";
        })
        .def(pyb::pickle([](const KernelObject& k) { return fs::kernelToJson(k.spec); },
                         [](const std::string& json) {
                             KernelObject k;
                             std::string why;
                             if (!fs::parseKernelJson(json, k.spec, &why)) throw ArgumentError{why};
                             return k;
                         }));

    const auto noneArg = pyb::none();
    m.def("filter", &filter, "image"_a, "kernel"_a, "backend"_a = "cpu", "mode"_a = noneArg, "border"_a = noneArg,
          "scale"_a = noneArg, "offset"_a = noneArg, "abs"_a = false, "depth"_a = "same", "output_size"_a = "same",
          "filter_alpha"_a = false);
    m.def("filter_device", &filterDevice, "source"_a, "allocate"_a, "kernel"_a, "backend"_a, "mode"_a, "border"_a,
          "scale"_a, "offset"_a, "abs"_a, "depth"_a, "output_size"_a, "filter_alpha"_a);
    m.def("kernel", &makeKernel, "kernel"_a, "border"_a = noneArg, "scale"_a = noneArg, "offset"_a = noneArg,
          "abs"_a = false, "depth"_a = "same", "output_size"_a = "same", "filter_alpha"_a = false);
    m.def("modes", &modes);
    m.def("backends", &backendList);
    m.def("presets", &presets);
    m.def("bench", &benchRows, "image"_a, "kernel"_a, "backend"_a = "cpu", "modes"_a = noneArg, "repeats"_a = 10,
          "warmup"_a = 2, "border"_a = noneArg, "scale"_a = noneArg, "offset"_a = noneArg, "abs"_a = false,
          "depth"_a = "same", "output_size"_a = "same");
    m.def("bench_preset", &benchPreset, "name"_a, "quick"_a = true, "seed"_a = 1, "sizes"_a = noneArg);
    m.def("bench_preset_names", &fs::bench::benchPresetNames);
    m.def("pipeline", &pipeline, "image"_a, "pipeline"_a, "backend"_a = "cpu", "mode"_a = noneArg, "filter_alpha"_a = false);
    m.def("layer", &layer, "images"_a, "bank"_a, "backend"_a = "cpu");
    m.def("random_image", &randomImage, "width"_a, "height"_a, "channels"_a = 1, "depth"_a = "u8", "seed"_a = 1);
    m.def("read_image", &readImage, "path"_a, "max_pixels"_a = fs::io::LoadOptions{}.maxPixels);
    m.def("write_image", &writeImage, "path"_a, "image"_a, "overwrite"_a = false);
    m.def("batch_plan", &batchPlan, "inputs"_a, "kernels"_a, "out_dir"_a, "format"_a = "", "overwrite"_a = false,
          "border"_a = noneArg, "scale"_a = noneArg, "offset"_a = noneArg, "abs"_a = false, "depth"_a = "same",
          "output_size"_a = "same");
    m.def("batch_file", &batchFile, "input"_a, "kernels"_a, "out_dir"_a, "backend"_a = "cpu", "mode"_a = noneArg,
          "format"_a = "", "overwrite"_a = false, "max_pixels"_a = fs::io::LoadOptions{}.maxPixels, "border"_a = noneArg,
          "scale"_a = noneArg, "offset"_a = noneArg, "abs"_a = false, "depth"_a = "same", "output_size"_a = "same");
    m.def("file_safe_kernel_name", &fs::batch::fileSafeKernelName);
}
