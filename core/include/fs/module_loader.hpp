#pragma once
// Opens one of the project's modules (the CUDA engine, video support) with
// dlopen and calls the one function it exports, which returns the module's
// interface. A template in a header on purpose: dlopen searches the RUNPATH
// of the object that calls it, which must be the program, where the modules'
// folder is, not a library of ours. The module is never closed.
#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>
#include <utility>

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

// A module opened by the first get(), once per process and from any thread;
// later calls give the same answer.
template <class Interface>
class LazyModule {
public:
    // Opened from `library`; a failure's reason starts with `what`.
    LazyModule(const char* library, const char* symbol, std::string what)
        : library_(library), symbol_(symbol), what_(std::move(what)) {}
    // This build has no such module, and `absentBecause` says so.
    explicit LazyModule(std::string absentBecause) : why_(std::move(absentBecause)) {}

    // The interface, or nullptr with `why` set.
    Interface* get(std::string* why = nullptr) {
        std::call_once(once_, [this] {
            if (!library_) return;
            module_ = openModule<Interface>(library_, symbol_, what_, why_);
            opened_.store(module_ != nullptr);
        });
        if (why) *why = why_;
        return module_;
    }
    // Whether get() has opened it; never opens it.
    bool opened() const { return opened_.load(); }

private:
    const char* library_ = nullptr;
    const char* symbol_ = nullptr;
    std::string what_;
    std::once_flag once_;
    Interface* module_ = nullptr;
    std::string why_;
    std::atomic<bool> opened_{false};
};

}  // namespace fs
