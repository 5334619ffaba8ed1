#pragma once
// Reading and writing the user's files safely (POSIX): inputs must be regular
// files and are read with a bound, so /dev/zero or a FIFO fail at once;
// outputs are written to a temporary file with a random name created
// exclusively (O_EXCL | O_NOFOLLOW) beside the target and renamed over it, so
// a file or a symbolic link that happens to carry a temporary-looking name is
// never touched, and a failed write leaves nothing behind: not on an error,
// and not when SIGINT, SIGTERM or SIGHUP ends the process mid-write (their
// default action is replaced by one that removes the temporary files first).
// SIGXFSZ is ignored, so a file over `ulimit -f` fails with a message instead
// of killing the process. A replaced output keeps its permission bits (and its
// group where the caller may set it); a new one gets the umask's default.
#include <cstdint>
#include <string>
#include <string_view>

namespace fs::files {

struct ReadOutcome {
    enum class Status { Ok, TooLarge, Failed };
    Status status = Status::Failed;
    std::uint64_t size = 0;  // the file's size (TooLarge: at least this many bytes)
    std::string problem;     // Failed: "not found", "is a directory, not a file", "is a FIFO ...", ...
    bool ok() const { return status == Status::Ok; }
};

// Reads the regular file at `path` (symbolic links followed) when it holds at
// most `maxBytes`. Never blocks on a FIFO and never reads a device.
ReadOutcome readRegularFile(const std::string& path, std::uint64_t maxBytes, std::string& bytes);

// Whether `path` may be written as an output.
struct OutputCheck {
    enum class Status {
        Free,      // nothing there: write it
        Exists,    // a regular, writable file: replaced only when overwriting is asked for
        Refused,   // never replaced: a symbolic link, a write-protected file, a folder, a device, ...
    };
    Status status = Status::Free;
    std::string problem;  // Exists and Refused: why, without the path ("exists", "is a symbolic link ...")
};
OutputCheck checkOutput(const std::string& path);
// The check above applied: empty when `path` may be written with this `overwrite` choice.
std::string outputRefusal(const std::string& path, bool overwrite);

// A temporary file beside `target` (same folder, so the rename is atomic):
// "<folder>/.<name>.<random>.tmp<suffix>", created exclusively and never
// through a link; <name> is shortened when needed so the temporary name fits
// the folder's NAME_MAX. Removed on destruction unless committed, and by the
// signal handlers above while it exists.
class TempFile {
public:
    TempFile() = default;
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    // False with `problem` when the folder is missing or not writable.
    bool create(const std::string& target, const std::string& suffix, std::string& problem);
    // For writers that open the file by name themselves (OpenCV's TIFF writer):
    // path() is "out<suffix>" inside a fresh folder of mode 0700 beside `target`,
    // so nobody else can put anything at that name.
    bool createForNamedWriter(const std::string& target, const std::string& suffix, std::string& problem);
    const std::string& path() const { return path_; }
    int fd() const { return fd_; }
    bool writeAll(std::string_view bytes, std::string& problem);  // write, flush to disk, close
    void closeFd();
    // Renames the file over `target`. Without `overwrite` an existing target
    // is kept (atomically: a file that appeared meanwhile is not replaced);
    // with it, a target that became a link or write-protected is still refused.
    bool commit(const std::string& target, bool overwrite, std::string& problem);

private:
    std::string path_;
    std::string folder_;  // createForNamedWriter only
    int fd_ = -1;
    bool committed_ = false;
    int pathSlot_ = -1, folderSlot_ = -1;  // entries in the signal handlers' list of files to remove
};

// Installs the handlers described above (once; signals whose disposition is
// not the default are left alone). TempFile calls it; exposed for tests.
void installSignalCleanup();

// The whole write: a TempFile holding `bytes`, committed over `target`.
// `problem` says what failed, without the path.
bool writeFileAtomically(const std::string& target, std::string_view bytes, bool overwrite, std::string& problem);

}  // namespace fs::files
