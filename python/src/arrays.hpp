#pragma once
// NumPy arrays to FilterStudio images and back. Images are H x W or
// H x W x C (C = 1, 3 or 4, BGR(A) order as in cv2), uint8, uint16 or
// float32. Rows may have any stride; anything else (a transposed or
// column-strided view) is copied to a contiguous array first.
#include <pybind11/numpy.h>

#include "fs/image.hpp"

namespace fs::py {

namespace pyb = pybind11;

struct InputImage {
    pyb::array array;     // keeps the pixels alive (the caller's array or a contiguous copy)
    ConstImageView view;
    bool planar2d = false;  // H x W: results come back H x W too
};

// TypeError for a non-array or an unsupported dtype, ValueError for a bad shape.
// Needs the GIL.
InputImage inputImage(const pyb::handle& object, const char* what = "image");

// Hands `image` to NumPy without a copy (the array owns it).
pyb::array toArray(Image&& image, bool planar2d);

}  // namespace fs::py
