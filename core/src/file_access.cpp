#include "fs/file_access.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

namespace fs::files {
namespace {

namespace fsys = std::filesystem;

std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "is a directory, not a file";
    if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(mode)) return "is a character device, not a regular file";
    if (S_ISBLK(mode)) return "is a block device, not a regular file";
    if (S_ISSOCK(mode)) return "is a socket, not a regular file";
    return "is not a regular file";
}

std::string openProblem(const std::string& path, int error) {
    switch (error) {
    case ENOENT: {
        struct stat link {};
        if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
            return "is a symbolic link to a file that does not exist";
        return "not found";
    }
    case ELOOP: return "is a symbolic link loop (too many levels of symbolic links)";
    case ENOTDIR: return "not found (a part of the path is not a folder)";
    case EACCES: return "cannot be read: permission denied";
    case ENAMETOOLONG: return "the path is too long";
    default: return std::string("cannot be opened: ") + std::strerror(error);
    }
}

std::string randomTag() {
    static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937_64 engine{std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32)};
    std::string tag(10, 'x');
    for (char& c : tag) c = kChars[engine() % (sizeof kChars - 1)];
    return tag;
}

// "<folder>/.<name>.<random>.tmp<suffix>" for `target`, with <name> cut so the
// whole fits the folder's NAME_MAX (an output name of 255 bytes is legal).
std::string tempNameBeside(const std::string& target, const std::string& suffix) {
    const fsys::path t(target);
    const fsys::path folder = t.has_parent_path() ? t.parent_path() : fsys::path(".");
    const long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    const std::size_t nameMax = limit > 0 ? static_cast<std::size_t>(limit) : NAME_MAX;
    std::string tag(1, '.');  // appended, not "." + ...: GCC 12 warns falsely on that (-Wrestrict)
    tag.append(randomTag()).append(".tmp").append(suffix);
    std::string name = t.filename().string();
    if (1 + name.size() + tag.size() > nameMax) name.resize(nameMax > tag.size() + 1 ? nameMax - tag.size() - 1 : 0);
    std::string leaf(1, '.');
    leaf.append(name).append(tag);
    return (folder / leaf).string();
}

std::string writeProblem(int error) {
    if (error == EFBIG)
        return "write error: the file would exceed the file-size limit (ulimit -f) or the file system's largest file";
    if (error == ENOSPC) return "write error: no space left on the device";
    if (error == EDQUOT) return "write error: disk quota exceeded";
    return std::string("write error: ") + std::strerror(error);
}

// The files the signal handlers remove: fixed slots, so the handler neither
// allocates nor locks. A slot is 0 free, 1 being filled, 2 in use.
struct CleanupSlot {
    std::atomic<int> state{0};
    char path[PATH_MAX];
};
constexpr int kCleanupSlots = 64;
CleanupSlot cleanupSlots[kCleanupSlots];

int claimCleanupSlot(const std::string& path) {
    if (path.size() >= PATH_MAX) return -1;
    for (int i = 0; i < kCleanupSlots; ++i) {
        int expected = 0;
        if (!cleanupSlots[i].state.compare_exchange_strong(expected, 1)) continue;
        std::memcpy(cleanupSlots[i].path, path.c_str(), path.size() + 1);
        cleanupSlots[i].state.store(2);
        return i;
    }
    return -1;  // more temporary files at once than slots: those are removed only by their destructors
}

void releaseCleanupSlot(int& slot) {
    if (slot >= 0) cleanupSlots[slot].state.store(0);
    slot = -1;
}

extern "C" void removeTempFilesAndDie(int sig) {
    const int saved = errno;
    for (CleanupSlot& s : cleanupSlots)  // files first, then the folders that held them
        if (s.state.load() == 2) ::unlink(s.path);
    for (CleanupSlot& s : cleanupSlots)
        if (s.state.load() == 2) ::rmdir(s.path);
    errno = saved;
    ::raise(sig);  // SA_RESETHAND restored the default action: the process ends by this signal, as it would have
}

bool writable(const struct stat& st, const std::string& path) {
    // Root ignores permission bits; a file without any write bit is still treated as protected.
    return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0 && ::access(path.c_str(), W_OK) == 0;
}

// Renames without ever replacing an existing `to`, atomically.
bool renameNoReplace(const std::string& from, const std::string& to, std::string& problem) {
#if defined(RENAME_NOREPLACE)
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
    if (errno != EINVAL && errno != ENOSYS) {
        problem = errno == EEXIST ? "exists" : std::string("cannot be written: ") + std::strerror(errno);
        return false;
    }
#endif
    // Filesystems (or C libraries) without RENAME_NOREPLACE: link() refuses an existing name as well.
    if (::link(from.c_str(), to.c_str()) != 0) {
        problem = errno == EEXIST ? "exists" : std::string("cannot be written: ") + std::strerror(errno);
        return false;
    }
    ::unlink(from.c_str());
    return true;
}

}  // namespace

ReadOutcome readRegularFile(const std::string& path, std::uint64_t maxBytes, std::string& bytes) {
    ReadOutcome r;
    bytes.clear();
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        r.problem = openProblem(path, errno);
        return r;
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        r.problem = std::string("cannot be read: ") + std::strerror(errno);
        return r;
    }
    if (!S_ISREG(st.st_mode)) {
        r.problem = kindOf(st.st_mode);
        return r;
    }
    r.size = static_cast<std::uint64_t>(st.st_size);
    if (r.size > maxBytes) {
        r.status = ReadOutcome::Status::TooLarge;
        return r;
    }
    // The file may grow while it is read: never take more than the bound.
    bytes.resize(static_cast<std::size_t>(r.size));
    std::size_t done = 0;
    for (;;) {
        if (done == bytes.size()) {
            if (done > maxBytes) break;
            bytes.resize(done + std::min<std::size_t>(1u << 16, static_cast<std::size_t>(maxBytes - done) + 1));
        }
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            bytes.clear();
            r.problem = std::string("read error: ") + std::strerror(errno);
            return r;
        }
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    r.size = done;
    if (done > maxBytes) {
        bytes.clear();
        r.status = ReadOutcome::Status::TooLarge;
        return r;
    }
    r.status = ReadOutcome::Status::Ok;
    return r;
}

OutputCheck checkOutput(const std::string& path) {
    OutputCheck c;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return c;  // nothing there (a missing folder is the writer's error)
    c.status = OutputCheck::Status::Refused;
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        const fsys::path target = fsys::read_symlink(path, ec);
        c.problem = "is a symbolic link" + (ec ? std::string() : " (to " + target.string() + ")") +
                    "; links are never replaced or written through: write to the file itself, or remove the link";
    } else if (!S_ISREG(st.st_mode)) {
        c.problem = kindOf(st.st_mode);
    } else if (!writable(st, path)) {
        c.problem = "is write-protected; not replaced (make it writable first if it is to go)";
    } else {
        c.status = OutputCheck::Status::Exists;
        c.problem = "exists";
    }
    return c;
}

std::string outputRefusal(const std::string& path, bool overwrite) {
    const OutputCheck c = checkOutput(path);
    if (c.status == OutputCheck::Status::Refused || (c.status == OutputCheck::Status::Exists && !overwrite))
        return c.problem;
    return {};
}

void installSignalCleanup() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
            struct sigaction old {};
            if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
                continue;  // ignored (nohup) or handled by the program itself: its choice stands
            struct sigaction act {};
            act.sa_handler = removeTempFilesAndDie;
            act.sa_flags = SA_RESETHAND | SA_NODEFER;
            sigemptyset(&act.sa_mask);
            ::sigaction(sig, &act, nullptr);
        }
        struct sigaction old {};
        if (::sigaction(SIGXFSZ, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            sigemptyset(&ignore.sa_mask);
            ::sigaction(SIGXFSZ, &ignore, nullptr);  // write() then fails with EFBIG, which is reported
        }
    });
}

TempFile::~TempFile() {
    closeFd();
    if (!committed_ && !path_.empty()) ::unlink(path_.c_str());
    if (!folder_.empty()) ::rmdir(folder_.c_str());
    releaseCleanupSlot(pathSlot_);
    releaseCleanupSlot(folderSlot_);
}

namespace {

// Tries fresh random names beside `target` until `make(name)` creates one; it fails
// with errno EEXIST when the name is taken (then the next is tried).
template <class Make>
bool claimFreshName(const std::string& target, const std::string& suffix, Make&& make, std::string& problem) {
    for (int attempt = 0; attempt < 16; ++attempt) {
        if (make(tempNameBeside(target, suffix))) return true;
        if (errno != EEXIST) {
            problem = std::string("cannot be written: ") + std::strerror(errno);
            return false;
        }
    }
    problem = "cannot be written: no free temporary name beside it";
    return false;
}

}  // namespace

bool TempFile::create(const std::string& target, const std::string& suffix, std::string& problem) {
    installSignalCleanup();
    return claimFreshName(target, suffix, [this](const std::string& name) {
        // O_EXCL | O_NOFOLLOW: an existing name, a symbolic link included, is never opened.
        fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd_ < 0) return false;
        path_ = name;
        pathSlot_ = claimCleanupSlot(path_);
        return true;
    }, problem);
}

bool TempFile::createForNamedWriter(const std::string& target, const std::string& suffix, std::string& problem) {
    installSignalCleanup();
    return claimFreshName(target, "", [&](const std::string& folder) {
        if (::mkdir(folder.c_str(), 0700) != 0) return false;
        folder_ = folder;
        path_ = (fsys::path(folder) / ("out" + suffix)).string();
        folderSlot_ = claimCleanupSlot(folder_);
        pathSlot_ = claimCleanupSlot(path_);
        return true;
    }, problem);
}

void TempFile::closeFd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

bool TempFile::writeAll(std::string_view bytes, std::string& problem) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            problem = n < 0 ? writeProblem(errno) : "write error: nothing written (disk full?)";
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd_) != 0 && errno != EINVAL) {
        problem = writeProblem(errno);
        return false;
    }
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) {
        problem = writeProblem(errno);
        return false;
    }
    return true;
}

bool TempFile::commit(const std::string& target, bool overwrite, std::string& problem) {
    closeFd();
    if (std::string why = outputRefusal(target, overwrite); !why.empty()) {
        problem = why;
        return false;
    }
    if (overwrite) {
        // The replacement keeps the replaced file's permissions, as cp and editors do: a
        // private result stays private. The group first: chown may clear mode bits.
        struct stat old {};
        if (::lstat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
            mode_t mode = old.st_mode & 0777;
            struct stat mine {};
            const bool groupKept = ::chown(path_.c_str(), static_cast<uid_t>(-1), old.st_gid) == 0 ||
                                   (::stat(path_.c_str(), &mine) == 0 && mine.st_gid == old.st_gid);
            if (!groupKept) mode &= ~static_cast<mode_t>(0070);  // never grant the old group's rights to another group
            if (::chmod(path_.c_str(), mode) != 0) {
                problem = std::string("cannot keep the replaced file's permissions: ") + std::strerror(errno);
                return false;
            }
        }
        // rename replaces the name itself: a link that appeared at `target` is replaced, never followed.
        if (::rename(path_.c_str(), target.c_str()) != 0) {
            problem = std::string("cannot be written: ") + std::strerror(errno);
            return false;
        }
    } else if (!renameNoReplace(path_, target, problem)) {
        return false;
    }
    committed_ = true;
    releaseCleanupSlot(pathSlot_);
    return true;
}

bool writeFileAtomically(const std::string& target, std::string_view bytes, bool overwrite, std::string& problem) {
    if (std::string why = outputRefusal(target, overwrite); !why.empty()) {
        problem = why;
        return false;
    }
    TempFile temp;
    return temp.create(target, "", problem) && temp.writeAll(bytes, problem) && temp.commit(target, overwrite, problem);
}

}  // namespace fs::files
