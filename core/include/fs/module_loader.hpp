#pragma once
// Opens one of the project's modules (the CUDA engine, video support) with
// dlopen and calls the one function it exports, which returns the module's
// interface. A template in a header on purpose: dlopen searches the RUNPATH
// of the object that calls it, which must be the program, where the modules'
// folder is, not a library of ours. The module is never closed.
#include <dlfcn.h>

#include <string>

namespace fs {

// The interface `symbol` returns, or nullptr with `why` in dlerror's words,
// starting with `what` ("the CUDA engine").
template <class Interface>
Interface* openModule(const char* library, const char* symbol, const std::string& what, std::string& why) {
    void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* error = dlerror();
        why = what + " could not be loaded: " + (error ? error : library);
        return nullptr;
    }
    using Entry = Interface* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, symbol));
    if (!entry) {
        why = what + " " + library + " is from another build (no " + symbol + ")";
        return nullptr;
    }
    return entry();
}

}  // namespace fs
