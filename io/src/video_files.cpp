#include "fs/io/video_files.hpp"

#include <atomic>

#include "fs/module_loader.hpp"

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
        r.codecs = openModule<VideoCodecs>(FS_VIDEOIO_LIBRARY, FS_VIDEOIO_MODULE_SYMBOL, "video support", r.why);
        loaded.store(r.codecs != nullptr);
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
