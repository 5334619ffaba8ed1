// filterstudio-cli: apply a filter to an image file with any backend and mode,
// list presets, list backends. Exit codes: 0 ok, 2 usage, 3 input error,
// 4 backend unavailable or failed.
#include <opencv2/core/version.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends.hpp"
#include "fs/io/image_io.hpp"
#include "fs/kernel_file.hpp"
#include "fs/presets.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitInput = 3;
constexpr int kExitBackend = 4;

const char* const kUsage = R"(filterstudio-cli: convolution filters on image files

Usage:
  filterstudio-cli apply -i IN -o OUT -k KERNEL [options]
  filterstudio-cli kernels          list the preset kernels
  filterstudio-cli modes            list backends, their modes and availability
  filterstudio-cli --version | --help

KERNEL is a preset (sobel-x, gaussian:5:1.2, ... see `kernels`) or a JSON
kernel file (format "filterstudio-kernel", version 1).

apply options:
  -i, --input IN       image to read (png, jpg, tif incl. 16-bit and float, bmp, ppm/pgm, webp)
  -o, --output OUT     image to write; never the input file. Written only when
                       everything succeeded. The extension picks the format.
  -k, --kernel KERNEL  preset name or kernel JSON file
  --backend ID         cpu (default) or cuda when built in
  --mode MODE          a mode of that backend (default: its first available one)
  --border B           replicate | reflect101 | constant[:V] | wrap (default: the kernel's, reflect101)
  --depth same|f32     same: round and saturate to the input depth (default);
                       f32: the raw float result, written as a 32-bit float TIFF
  --scale S            multiply the result by S (applied before --offset)
  --offset O           add O to the result
  --abs                take the absolute value after scale and offset
  --max-pixels N       refuse images larger than N pixels (default 268435456)

Colour images are filtered per channel in the file's BGR(A) order.
Exit codes: 0 ok, 2 usage error, 3 input error (image, kernel or output file),
4 backend unavailable or failed.
)";

struct UsageError {
    std::string message;
};

int usageError(const std::string& message) {
    std::cerr << "filterstudio-cli: " << message << "\nRun `filterstudio-cli --help` for usage.\n";
    return kExitUsage;
}

int inputError(const std::string& message) {
    std::cerr << "filterstudio-cli: " << message << "\n";
    return kExitInput;
}

int backendError(const std::string& message) {
    std::cerr << "filterstudio-cli: " << message << "\n";
    return kExitBackend;
}

std::optional<double> parseFinite(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == nullptr || *end != '\0' || !std::isfinite(v)) return std::nullopt;
    return v;
}

struct ApplyOptions {
    std::string input, output, kernel, backend = "cpu", mode;
    std::optional<std::string> border, depth;
    std::optional<float> scale, offset;
    bool absolute = false;
    std::uint64_t maxPixels = fs::io::LoadOptions{}.maxPixels;
};

// Throws UsageError for anything malformed on the command line.
ApplyOptions parseApply(const std::vector<std::string>& args) {
    ApplyOptions o;
    auto number = [](const std::string& name, const std::string& text) {
        const std::optional<double> v = parseFinite(text);
        if (!v) throw UsageError{name + " needs a finite number, got '" + text + "'"};
        return *v;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::optional<std::string> inlineValue;
        if (const std::size_t eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        auto value = [&]() -> std::string {
            if (inlineValue) return *inlineValue;
            if (i + 1 >= args.size()) throw UsageError{name + " needs a value"};
            return args[++i];
        };
        if (name == "-i" || name == "--input") o.input = value();
        else if (name == "-o" || name == "--output") o.output = value();
        else if (name == "-k" || name == "--kernel") o.kernel = value();
        else if (name == "--backend") o.backend = value();
        else if (name == "--mode") o.mode = value();
        else if (name == "--border") o.border = value();
        else if (name == "--depth") o.depth = value();
        else if (name == "--scale") o.scale = static_cast<float>(number(name, value()));
        else if (name == "--offset") o.offset = static_cast<float>(number(name, value()));
        else if (name == "--abs") {
            if (inlineValue) throw UsageError{"--abs takes no value"};
            o.absolute = true;
        } else if (name == "--max-pixels") {
            const double v = number(name, value());
            if (v < 1 || v != std::floor(v)) throw UsageError{"--max-pixels needs a positive whole number"};
            o.maxPixels = static_cast<std::uint64_t>(v);
        } else throw UsageError{"unknown option '" + args[i] + "' for apply"};
    }
    if (o.input.empty()) throw UsageError{"apply needs -i IN"};
    if (o.output.empty()) throw UsageError{"apply needs -o OUT"};
    if (o.kernel.empty()) throw UsageError{"apply needs -k KERNEL"};
    if (o.depth && *o.depth != "same" && *o.depth != "f32")
        throw UsageError{"--depth must be 'same' or 'f32', not '" + *o.depth + "'"};
    return o;
}

bool samePath(const std::string& a, const std::string& b) {
    namespace fsys = std::filesystem;
    std::error_code ec;
    if (fsys::exists(a, ec) && fsys::exists(b, ec)) return fsys::equivalent(a, b, ec);
    return fsys::weakly_canonical(a, ec) == fsys::weakly_canonical(b, ec);
}

std::string lowerExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

// A JSON file when the path exists or names a .json file; otherwise a preset.
int loadKernel(const std::string& text, fs::FilterSpec& spec) {
    std::error_code ec;
    const bool isFile = std::filesystem::is_regular_file(text, ec);
    if (isFile || lowerExtension(text) == ".json") {
#if defined(FS_HAVE_KERNEL_FILES)
        if (!isFile) return inputError(text + ": kernel file not found");
        std::string why;
        if (!fs::loadKernelFile(text, spec, &why)) return inputError(why.rfind(text, 0) == 0 ? why : text + ": " + why);
        return kExitOk;
#else
        return usageError(text + ": this build has no JSON kernel file support (built without nlohmann-json)");
#endif
    }
    std::string why;
    if (!fs::makePreset(text, spec, &why)) return usageError(why);
    return kExitOk;
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
    if (o.border) {
        std::string why;
        if (!fs::parseBorder(*o.border, spec.border, &why)) return usageError(why);
    }
    if (o.depth) spec.output.floatOutput = *o.depth == "f32";
    if (o.scale) spec.output.scale = *o.scale;
    if (o.offset) spec.output.offset = *o.offset;
    if (o.absolute) spec.output.absolute = true;
    if (spec.output.floatOutput && lowerExtension(o.output) != ".tif" && lowerExtension(o.output) != ".tiff")
        return usageError("--depth f32 writes a 32-bit float TIFF: " + o.output + " must end in .tif or .tiff");
    if (samePath(o.input, o.output))
        return usageError(o.output + ": the output would overwrite the input; choose another file");

    std::vector<std::unique_ptr<fs::Backend>> backends = fs::makeAllBackends();
    fs::Backend* backend = fs::findBackend(backends, o.backend);
    if (!backend) {
        std::string known;
        for (const auto& b : backends) known += (known.empty() ? "" : ", ") + b->id();
        return backendError("no backend '" + o.backend + "' in this build (have: " + known + ")");
    }
    if (!backend->available()) return backendError(o.backend + " is unavailable: " + backend->unavailableReason());
    const std::vector<fs::ModeInfo> modes = backend->modes();
    std::string mode = o.mode;
    if (mode.empty()) {
        for (const fs::ModeInfo& m : modes)
            if (m.available) {
                mode = m.id;
                break;
            }
        if (mode.empty()) return backendError(o.backend + " has no available mode");
    } else {
        const fs::ModeInfo* found = nullptr;
        std::string known;
        for (const fs::ModeInfo& m : modes) {
            if (m.id == mode) found = &m;
            known += (known.empty() ? "" : ", ") + m.id;
        }
        if (!found) return usageError(o.backend + " has no mode '" + mode + "' (have: " + known + ")");
        if (!found->available)
            return backendError(o.backend + "/" + mode + " is unavailable: " + found->unavailableReason);
    }

    fs::io::LoadOptions loadOptions;
    loadOptions.maxPixels = o.maxPixels;
    fs::io::LoadResult loaded = fs::io::loadImage(o.input, loadOptions);
    if (!loaded.ok()) return inputError(loaded.error);
    const fs::ConstImageView input = loaded.image.cview();
    if (std::string why = fs::validateRun(spec, input); !why.empty()) return inputError(o.kernel + ": " + why);

    fs::RunResult result = backend->run(spec, input, mode);
    if (!result.ok()) return backendError(o.backend + "/" + mode + " failed: " + result.error);

    std::string why;
    if (!fs::io::saveImage(o.output, result.output.cview(), &why)) return inputError(why);

    std::cout << "applied " << spec.name << " (" << spec.kernels[0].width << "x" << spec.kernels[0].height
              << (spec.kernels.size() > 1 ? " x2, magnitude" : "") << ", border " << fs::borderModeName(spec.border.mode)
              << ") to " << o.input << " (" << input.width << "x" << input.height << ", " << input.channels << " ch, "
              << fs::depthName(input.depth) << ") -> " << o.output << " (" << fs::depthName(result.output.depth())
              << ")\n";
    std::cout << "timing " << result.timing.backend << "/" << result.timing.mode << ": " << result.timing.toString()
              << "\n";
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
        for (const fs::ModeInfo& m : b->modes())
            std::printf("  %-12s %-12s %s\n", m.id.c_str(),
                        m.available ? "available" : "unavailable", m.available ? m.description.c_str()
                                                                               : m.unavailableReason.c_str());
    }
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
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
