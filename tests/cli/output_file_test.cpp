// fs::files outputs (core/src/file_access.cpp): what a replaced file keeps,
// temporary names at NAME_MAX, and no temporary file left by a signal or by
// the file-size limit.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "fs/file_access.hpp"
#include "fs/launch.hpp"
#include "temp_dir.hpp"

namespace fs {
namespace {

mode_t modeOf(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
}

TEST(OutputFile, ReplacedFileKeepsItsModeAndANewOneGetsTheUmasksDefault) {
    test::TempDir dir;
    const std::string kept = dir.write("private.txt", "old");
    ASSERT_EQ(::chmod(kept.c_str(), 0600), 0);
    std::string problem;
    ASSERT_TRUE(files::writeFileAtomically(kept, "new", true, problem)) << problem;
    EXPECT_EQ(test::readBytes(kept), "new");
    EXPECT_EQ(modeOf(kept), 0600u) << "a private file stays private";

    ASSERT_EQ(::chmod(kept.c_str(), 0640), 0);
    ASSERT_TRUE(files::writeFileAtomically(kept, "newer", true, problem)) << problem;
    EXPECT_EQ(modeOf(kept), 0640u);

    const mode_t mask = ::umask(022);
    ::umask(mask);
    const std::string fresh = dir.file("fresh.txt");
    ASSERT_TRUE(files::writeFileAtomically(fresh, "x", false, problem)) << problem;
    EXPECT_EQ(modeOf(fresh), 0666u & ~mask);
}

TEST(OutputFile, OutputNamesUpToNameMaxCanBeWritten) {
    test::TempDir dir;
    for (const std::size_t length : {240u, 250u, 255u}) {
        const std::string name = std::string(length - 4, 'n') + ".txt";
        const std::string path = dir.file(name);
        std::string problem;
        ASSERT_TRUE(files::writeFileAtomically(path, "x", false, problem)) << length << ": " << problem;
        EXPECT_EQ(test::readBytes(path), "x");
        files::TempFile named;
        ASSERT_TRUE(named.createForNamedWriter(path, ".tif", problem)) << length << ": " << problem;
    }
    EXPECT_EQ(dir.entries(), 3u) << "only the three outputs, no temporary left";
}

// Runs `child` in a forked process and returns its wait status.
template <class Child> int inChild(Child&& child) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        child();
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

TEST(OutputFile, InterruptingSignalsRemoveTheTemporaryFilesBeforeTheProcessEnds) {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction current {};
        ::sigaction(sig, nullptr, &current);
        if (current.sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup: ignored signals stay ignored
        test::TempDir dir;
        const std::string target = dir.file("o.png");
        const int status = inChild([&] {
            files::TempFile plain, named;
            std::string problem;
            if (!plain.create(target, "", problem) || !named.createForNamedWriter(target, ".tif", problem)) ::_exit(10);
            if (::write(plain.fd(), "partial", 7) != 7) ::_exit(11);
            const std::string inner = "half a tiff";
            FILE* f = std::fopen(named.path().c_str(), "wb");  // as OpenCV's TIFF writer would
            if (!f || std::fwrite(inner.data(), 1, inner.size(), f) != inner.size()) ::_exit(12);
            std::fclose(f);
            ::raise(sig);
            ::_exit(13);  // not reached: the signal ends the process
        });
        ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << sig << ": exit status " << status;
        EXPECT_EQ(WTERMSIG(status), sig) << "the process still ends by the signal";
        EXPECT_EQ(dir.entries(), 0u) << "signal " << sig << " left a temporary file or folder";
    }
}

TEST(OutputFile, FileSizeLimitGivesAMessageInsteadOfKillingTheProcess) {
    test::TempDir dir;
    const std::string target = dir.file("big.bin");
    const std::string problemFile = dir.file("problem");
    const int status = inChild([&] {
        const struct rlimit limit {4096, 4096};
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(20);
        std::string problem;
        if (files::writeFileAtomically(target, std::string(100000, 'x'), false, problem)) ::_exit(21);
        ::_exit(problem.find("file-size limit") != std::string::npos ? 0 : 22);
    });
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "20: setrlimit failed, 21: written anyway, 22: message without the limit";
    EXPECT_EQ(dir.entries(), 0u) << "nothing left behind";
}

#if defined(FS_HAVE_KERNEL_FILES)
TEST(TuneCacheFile, ResetAndSaveTouchOnlyAFileThatIsATuningCache) {
    test::TempDir dir;
    const std::string notes = dir.write("notes.txt", "my notes, not a cache\n");
    TuneCache wrong(notes);
    std::string why = wrong.reset();
    EXPECT_NE(why.find("not a tuning cache"), std::string::npos) << why;
    EXPECT_EQ(test::readBytes(notes), "my notes, not a cache\n") << "reset kept the file";
    TuneKey key;
    key.gpu = "test";
    key.mode = "shared";
    key.sizeClass = "<=1MP";
    wrong.store(key, LaunchConfig{}, 1.0);
    why = wrong.save();
    EXPECT_NE(why.find("not a tuning cache"), std::string::npos) << why;
    EXPECT_EQ(test::readBytes(notes), "my notes, not a cache\n") << "save kept the file";

    const std::string real = dir.file("launch-tuning.json");
    TuneCache cache(real);
    cache.store(key, LaunchConfig{}, 1.0);
    ASSERT_EQ(cache.save(), "");
    ASSERT_EQ(cache.save(), "") << "a cache replaces a cache";
    EXPECT_EQ(cache.reset(), "");
    EXPECT_FALSE(std::filesystem::exists(real)) << "a real cache is deleted";
    EXPECT_EQ(cache.reset(), "") << "nothing there: nothing to refuse";
}
#endif

}  // namespace
}  // namespace fs
