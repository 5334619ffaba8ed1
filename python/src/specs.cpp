#include "specs.hpp"

#include <pybind11/numpy.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "batch_job.hpp"
#include "errors.hpp"
#include "fs/kernel_file.hpp"
#include "fs/presets.hpp"

namespace fs::py {
namespace {

// As the CLI's loadKernel: anything at that path (or a name ending in .json)
// is a file to read; anything else a preset.
FilterSpec specFromText(const std::string& text, bool isPath) {
    namespace fsys = std::filesystem;
    std::error_code ec;
    const bool onDisk = fsys::exists(fsys::symlink_status(text, ec));
    const bool isJson = batch::lowerExtension(text) == ".json";
    FilterSpec spec;
    std::string why;
    if (isPath || (onDisk && (isJson || !fsys::is_directory(text, ec))) || isJson) {
        if (!loadKernelFile(text, spec, &why)) throw FileError{why.rfind(text, 0) == 0 ? why : text + ": " + why};
        return spec;
    }
    if (!makePreset(text, spec, &why)) throw ArgumentError{why};
    return spec;
}

Kernel kernelFromArray(const pyb::handle& object) {
    const pyb::array raw = pyb::array::ensure(object);
    if (!raw) throw pyb::type_error("a kernel array must hold numbers");
    const char kind = raw.dtype().kind();
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
        throw pyb::type_error("a kernel array must hold numbers, not dtype " + std::string(pyb::str(raw.dtype())));
    if (raw.ndim() != 2)
        throw ArgumentError{"a kernel array must be 2-D (rows x columns), not " + std::to_string(raw.ndim()) + "-D"};
    const auto weights = pyb::array_t<double, pyb::array::c_style | pyb::array::forcecast>::ensure(raw);
    const pyb::ssize_t h = weights.shape(0), w = weights.shape(1);
    if (w < 1 || h < 1 || w > kMaxKernelSize || h > kMaxKernelSize)
        throw ArgumentError{"kernel " + std::to_string(w) + "x" + std::to_string(h) + ": width and height must be odd, 1 to " +
                            std::to_string(kMaxKernelSize)};
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(w * h));
    const double* p = weights.data();
    for (pyb::ssize_t i = 0; i < w * h; ++i) {
        if (!std::isfinite(p[i]) || std::fabs(p[i]) > static_cast<double>(std::numeric_limits<float>::max()))
            throw ArgumentError{"kernel weights must be finite 32-bit floats"};
        values.push_back(static_cast<float>(p[i]));
    }
    return Kernel(static_cast<int>(w), static_cast<int>(h), std::move(values));
}

FilterSpec specFromArrays(const std::vector<pyb::handle>& arrays) {
    FilterSpec spec;
    if (arrays.size() != 1 && arrays.size() != 2)
        throw ArgumentError{"a list of kernel arrays is their magnitude, sqrt(k0^2 + k1^2): give 2 arrays, not " +
                            std::to_string(arrays.size())};
    for (const pyb::handle& a : arrays) {
        Kernel k = kernelFromArray(a);
        if (std::string why = validateKernel(k); !why.empty()) throw ArgumentError{why};
        spec.kernels.push_back(std::move(k));
    }
    spec.combine = arrays.size() == 2 ? Combine::Magnitude : Combine::Single;
    const Kernel& k = spec.kernels[0];
    spec.name = "array " + std::to_string(k.width) + "x" + std::to_string(k.height) + (arrays.size() == 2 ? " x2" : "");
    return spec;
}

}  // namespace

FilterSpec specOf(const pyb::handle& kernel) {
    FilterSpec spec;
    if (pyb::isinstance<KernelObject>(kernel)) {
        spec = kernel.cast<const KernelObject&>().spec;
    } else if (pyb::isinstance<pyb::str>(kernel)) {
        spec = specFromText(kernel.cast<std::string>(), false);
    } else if (pyb::hasattr(kernel, "__fspath__")) {
        const pyb::object path = pyb::module_::import("os").attr("fspath")(kernel);
        if (!pyb::isinstance<pyb::str>(path)) throw pyb::type_error("a kernel file's path must be text, not bytes");
        spec = specFromText(path.cast<std::string>(), true);
    } else if (pyb::isinstance<pyb::list>(kernel) || pyb::isinstance<pyb::tuple>(kernel)) {
        // A list of arrays is a magnitude; a nested list of numbers is one kernel.
        const pyb::sequence items = pyb::reinterpret_borrow<pyb::sequence>(kernel);
        bool allArrays = pyb::len(items) > 0;
        std::vector<pyb::handle> arrays;
        for (const pyb::handle item : items) {
            allArrays = allArrays && pyb::isinstance<pyb::array>(item);
            arrays.push_back(item);
        }
        spec = allArrays ? specFromArrays(arrays) : specFromArrays({kernel});
    } else if (pyb::isinstance<pyb::array>(kernel)) {
        spec = specFromArrays({kernel});
    } else {
        throw pyb::type_error("kernel must be a preset name, a kernel file's path, a filterstudio.Kernel, a 2-D array "
                              "or a list of 2-D arrays, not " +
                              std::string(pyb::str(pyb::type::handle_of(kernel).attr("__name__"))));
    }
    if (std::string why = validateSpec(spec); !why.empty()) throw ArgumentError{spec.name + ": " + why};
    return spec;
}

std::string kernelName(const pyb::handle& kernel, const FilterSpec& spec) {
    if (pyb::isinstance<pyb::str>(kernel)) return kernel.cast<std::string>();
    if (pyb::hasattr(kernel, "__fspath__")) return pyb::module_::import("os").attr("fspath")(kernel).cast<std::string>();
    return spec.name;
}

namespace {

float fitFloat(const char* name, double v) {
    if (!std::isfinite(v)) throw ArgumentError{std::string(name) + " needs a finite number, got '" + std::to_string(v) + "'"};
    if (std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
        throw ArgumentError{std::string(name) + " must fit a 32-bit float (at most 3.4e38 in size)"};
    return static_cast<float>(v);
}

}  // namespace

void Overrides::applyTo(FilterSpec& spec) const {
    if (border) {
        std::string why;
        if (!parseBorder(*border, spec.border, &why)) throw ArgumentError{why};
    }
    if (depth != "same" && depth != "f32") throw ArgumentError{"depth must be 'same' or 'f32', not '" + depth + "'"};
    OutputSize size = OutputSize::Same;
    if (!parseOutputSize(outputSize, size))
        throw ArgumentError{"output_size must be 'same' or 'valid', not '" + outputSize + "'"};
    if (depth == "f32") spec.output.floatOutput = true;
    if (scale) spec.output.scale = fitFloat("scale", *scale);
    if (offset) spec.output.offset = fitFloat("offset", *offset);
    if (absolute) spec.output.absolute = true;
    if (filterAlpha) spec.filterAlpha = true;
    spec.outputSize = size;
}

std::string borderText(const Border& border) {
    std::string text = borderModeName(border.mode);
    if (border.mode == BorderMode::Constant) {
        char value[32];
        std::snprintf(value, sizeof value, ":%g", static_cast<double>(border.value));
        text += value;
    }
    return text;
}

}  // namespace fs::py
