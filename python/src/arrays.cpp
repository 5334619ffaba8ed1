#include "arrays.hpp"

#include <string>

namespace fs::py {
namespace {

bool depthOf(const pyb::dtype& dtype, Depth& out) {
    if (dtype.is(pyb::dtype::of<std::uint8_t>())) out = Depth::U8;
    else if (dtype.is(pyb::dtype::of<std::uint16_t>())) out = Depth::U16;
    else if (dtype.is(pyb::dtype::of<float>())) out = Depth::F32;
    else return false;
    return true;
}

pyb::dtype dtypeOf(Depth depth) {
    switch (depth) {
    case Depth::U8: return pyb::dtype::of<std::uint8_t>();
    case Depth::U16: return pyb::dtype::of<std::uint16_t>();
    case Depth::F32: break;
    }
    return pyb::dtype::of<float>();
}

}  // namespace

InputImage inputImage(const pyb::handle& object, const char* what) {
    const std::string name = what;
    if (!pyb::isinstance<pyb::array>(object))
        throw pyb::type_error(name + " must be a NumPy array (H x W or H x W x C), not " +
                              std::string(pyb::str(pyb::type::handle_of(object).attr("__name__"))));
    InputImage in;
    in.array = pyb::reinterpret_borrow<pyb::array>(object);
    Depth depth = Depth::U8;
    if (!depthOf(in.array.dtype(), depth))
        throw pyb::type_error(name + " has dtype " + std::string(pyb::str(in.array.dtype())) +
                              ": FilterStudio takes uint8, uint16 or float32 (convert with .astype)");
    const pyb::ssize_t ndim = in.array.ndim();
    if (ndim != 2 && ndim != 3)
        throw pyb::value_error(name + " must be H x W or H x W x C, not " + std::to_string(ndim) + "-dimensional");
    const pyb::ssize_t channels = ndim == 3 ? in.array.shape(2) : 1;
    if (channels != 1 && channels != 3 && channels != 4)
        throw pyb::value_error(name + " has " + std::to_string(channels) +
                               " channels: FilterStudio takes 1, 3 or 4 (BGR(A) order)");
    const pyb::ssize_t height = in.array.shape(0), width = in.array.shape(1);
    if (width <= 0 || height <= 0) throw pyb::value_error(name + " is empty (" + std::to_string(height) + " x " +
                                                          std::to_string(width) + ")");
    if (width > 0x7fffffff || height > 0x7fffffff) throw pyb::value_error(name + " is too large");
    const pyb::ssize_t item = in.array.itemsize();
    // Pixels packed within a row, rows at any positive, aligned stride: used in place.
    const bool packedRows = in.array.strides(1) == channels * item && (ndim == 2 || in.array.strides(2) == item) &&
                            in.array.strides(0) >= width * channels * item && in.array.strides(0) % item == 0 &&
                            reinterpret_cast<std::uintptr_t>(in.array.data()) % static_cast<std::uintptr_t>(item) == 0;
    if (!packedRows) in.array = pyb::array::ensure(in.array, pyb::array::c_style);
    in.planar2d = ndim == 2;
    in.view = ConstImageView(in.array.data(), static_cast<int>(width), static_cast<int>(height),
                             static_cast<int>(channels), depth, static_cast<std::size_t>(in.array.strides(0)));
    return in;
}

pyb::array toArray(Image&& image, bool planar2d) {
    auto* owner = new Image(std::move(image));
    pyb::capsule release(owner, [](void* p) { delete static_cast<Image*>(p); });
    const auto item = static_cast<pyb::ssize_t>(depthBytes(owner->depth()));
    const pyb::ssize_t h = owner->height(), w = owner->width(), c = owner->channels();
    const auto stride = static_cast<pyb::ssize_t>(owner->stride());
    if (planar2d && c == 1) return pyb::array(dtypeOf(owner->depth()), {h, w}, {stride, item}, owner->data(), release);
    return pyb::array(dtypeOf(owner->depth()), {h, w, c}, {stride, c * item, item}, owner->data(), release);
}

}  // namespace fs::py
