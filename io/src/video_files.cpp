#include "fs/io/video_files.hpp"

#include <dlfcn.h>

#include <atomic>

namespace fs::io {
namespace {

struct Loaded {
    VideoCodecs* codecs = nullptr;
    std::string why;
};

std::atomic<bool> loaded{false};

const Loaded& load() {
    static const Loaded result = [] {
        Loaded r;
#if defined(FS_VIDEOIO_LIBRARY)
        // Found through the program's RUNPATH, as its linked libraries are. Never closed.
        void* library = dlopen(FS_VIDEOIO_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char* error = dlerror();
            r.why = std::string("video support could not be loaded: ") + (error ? error : FS_VIDEOIO_LIBRARY);
            return r;
        }
        using Entry = VideoCodecs* (*)();
        const auto entry = reinterpret_cast<Entry>(dlsym(library, FS_VIDEOIO_MODULE_SYMBOL));
        if (!entry) {
            r.why = std::string("video support ") + FS_VIDEOIO_LIBRARY + " is from another build (no " +
                    FS_VIDEOIO_MODULE_SYMBOL + ")";
            return r;
        }
        r.codecs = entry();
        loaded.store(true);
#else
        r.why = "this build's OpenCV has no videoio (video files and cameras)";
#endif
        return r;
    }();
    return result;
}

}  // namespace

VideoCodecs* videoCodecs(std::string* why) {
    const Loaded& l = load();
    if (why) *why = l.why;
    return l.codecs;
}

bool videoCodecsLoaded() { return loaded.load(); }

}  // namespace fs::io
