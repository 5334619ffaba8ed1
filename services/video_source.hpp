#pragma once
// The studio's moving pictures: a video file or a camera decoded on a thread of its own. The decoder
// keeps only the newest frame: when nobody took the previous one yet, it is replaced and counted as
// dropped, so a slow filter sees fewer frames instead of a growing queue. Files and cameras are read
// through OpenCV's videoio where this build has it; a FrameReader of one's own plugs in the same way.
#include <QObject>
#include <QString>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fs/image.hpp"

namespace fs::services {

// A source of 8-bit frames, read one after another on the decoder's thread.
class FrameReader {
public:
    virtual ~FrameReader() = default;
    // The next frame into `frame` (reusing its pixels when the size fits). False at the end of the
    // stream (`why` empty) or when reading failed (`why` says how).
    virtual bool read(Image& frame, std::string& why) = 0;
    virtual double framesPerSecond() const = 0;  // 0 when the source does not say
    virtual long long declaredFrames() const { return 0; }  // what the container declares; 0 when unknown
    virtual bool rewind() { return false; }  // back to the first frame; false where impossible (a camera)
    virtual bool live() const { return false; }  // a camera: no end, no loop
};

// Whether this build reads video files and cameras (OpenCV with videoio); empty when it does, else why not.
QString videoUnsupportedReason();
// A video file through OpenCV's FFmpeg: nothing and `why` when it has no video stream or no decodable frame.
std::unique_ptr<FrameReader> openVideoFile(const QString& path, QString& why);

struct CameraInfo {
    QString device;  // "/dev/video0"
    QString name;    // what V4L2 calls it, when it says
};
// The V4L2 capture devices present (/dev/video*) that OpenCV can open; empty when none or without videoio.
std::vector<CameraInfo> listCameras();
std::unique_ptr<FrameReader> openCamera(const QString& device, QString& why);

struct VideoFrame {
    std::shared_ptr<const Image> image;
    long long index = 0;    // 0-based position in the stream (counting from the last rewind)
    double decodeMs = 0.0;  // time spent reading and decoding it
};

// Decodes on its own thread, paced at the source's rate (or as fast as it can), and hands the newest
// frame over through take(). Signals arrive on the thread that made the source.
class VideoSource : public QObject {
    Q_OBJECT
public:
    explicit VideoSource(QObject* parent = nullptr);
    ~VideoSource() override;

    // Starts on `reader` (paused, at its first frame, which is decoded at once); `name` is for messages.
    void start(std::unique_ptr<FrameReader> reader, const QString& name);
    void close();  // stops decoding and forgets the reader
    bool isOpen() const;
    bool live() const;
    QString name() const { return name_; }
    double framesPerSecond() const;  // the pace of playback: the source's rate, 25 when it has none

    void play();
    void pause();
    void step();  // decodes one frame while paused
    bool playing() const;
    void setLoop(bool loop);  // files start again from the first frame at the end
    bool loop() const;
    // Paced: one frame per 1/fps. Unpaced: as fast as the decoder goes (measurements).
    void setPaced(bool paced);

    // The newest decoded frame not yet taken, if any.
    std::optional<VideoFrame> take();
    long long decoded() const;  // frames decoded since start()
    long long dropped() const;  // frames replaced by a newer one before anyone took them

signals:
    void frameReady();  // a frame waits in take(); not repeated until it is taken
    void playingChanged(bool playing);
    void ended();  // the end of a file without loop: paused on the last frame; play() starts it again
    // Decoding stopped for good (a cut file, a vanished camera, a changed resolution); the last frame stays.
    void failed(const QString& message);

private:
    void decodeLoop();
    void notifyPlaying(bool playing);

    QString name_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::unique_ptr<FrameReader> reader_;
    std::thread thread_;
    bool quit_ = false, playing_ = false, loop_ = false, paced_ = true, live_ = false;
    int steps_ = 0;  // single frames asked for while paused
    double fps_ = 25.0;
    std::optional<VideoFrame> newest_;
    bool notified_ = false;  // frameReady() sent for newest_ and not taken yet
    long long decoded_ = 0, dropped_ = 0;
    std::vector<std::shared_ptr<Image>> pool_;  // frame buffers, reused once nobody holds them
};

}  // namespace fs::services
