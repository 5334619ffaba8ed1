#pragma once
// Video files and cameras through OpenCV's videoio, which links FFmpeg,
// GStreamer and a hundred more libraries. They live in a module of their own
// (libfs_videoio.so), opened with dlopen the first time a video is asked
// for, so programs start without mapping them (and run under memory limits
// they would not fit in).
#include <memory>
#include <string>

#include <opencv2/core/mat.hpp>

namespace fs::io {

enum class VideoApi { Ffmpeg, V4l2 };

class VideoReader {
public:
    virtual ~VideoReader() = default;
    // The next frame into `frame` (reusing its buffer where it fits); false at the end or on a broken stream.
    virtual bool read(cv::Mat& frame) = 0;
    virtual double fps() const = 0;             // 0 when the container does not say
    virtual double declaredFrames() const = 0;  // the container's count; 0 or less when unknown
};

class VideoWriter {
public:
    virtual ~VideoWriter() = default;
    virtual void write(const cv::Mat& frame) = 0;  // 8-bit BGR of the size it was created with
    virtual void close() = 0;                      // flushes and finishes the file
};

class VideoCodecs {
public:
    // nullptr when `source` (a file, or a camera's device node) cannot be opened.
    virtual std::unique_ptr<VideoReader> open(const std::string& source, VideoApi api) = 0;
    // A colour video through FFmpeg; nullptr when this OpenCV cannot write it.
    virtual std::unique_ptr<VideoWriter> create(const std::string& path, int fourcc, double fps, cv::Size size) = 0;

protected:
    ~VideoCodecs() = default;
};

// The module, opened on first call; nullptr with `why` where it cannot be
// (a build without videoio, or dlopen's words). Later calls give the same answer.
VideoCodecs* videoCodecs(std::string* why = nullptr);

// FFmpeg's code for a four-character codec name, as cv::VideoWriter::fourcc.
constexpr int fourcc(char a, char b, char c, char d) {
    return (a & 255) | ((b & 255) << 8) | ((c & 255) << 16) | ((d & 255) << 24);
}

}  // namespace fs::io

#define FS_VIDEOIO_MODULE_SYMBOL "fs_videoio_module_v1"
extern "C" fs::io::VideoCodecs* fs_videoio_module_v1();
