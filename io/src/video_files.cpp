#include "fs/io/video_files.hpp"

#include "fs/module_loader.hpp"

namespace fs::io {

VideoCodecs* videoCodecs(std::string* why) {
#if defined(FS_VIDEOIO_LIBRARY)
    static LazyModule<VideoCodecs> module(FS_VIDEOIO_LIBRARY, FS_VIDEOIO_MODULE_SYMBOL, "video support");
#else
    static LazyModule<VideoCodecs> module("this build's OpenCV has no videoio (video files and cameras)");
#endif
    return module.get(why);
}

}  // namespace fs::io
