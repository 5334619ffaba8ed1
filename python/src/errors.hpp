#pragma once
// The errors the bindings raise, as C++ types the module translates once
// (module.cpp): a bad argument is ValueError (TypeError through pybind11's
// own type_error), a missing or unavailable device DeviceUnavailable, a run
// that failed FilterError (both RuntimeError), a file problem OSError.
#include <string>

namespace fs::py {

struct ArgumentError {
    std::string message;
};
struct DeviceError {
    std::string message;
};
struct RunError {
    std::string message;
};
struct FileError {
    std::string message;
};

}  // namespace fs::py
