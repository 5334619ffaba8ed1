#pragma once
// A fresh folder per test, removed afterwards, for files the tests write.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs::test {

class TempDir {
public:
    TempDir() {
        const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
        static int counter = 0;
        path_ = std::filesystem::temp_directory_path() /
                ("filterstudio-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-" +
                 info->test_suite_name() + "-" + info->name());
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::string write(const std::string& name, const std::string& bytes) const {
        std::ofstream out(file(name), std::ios::binary);
        out << bytes;
        return file(name);
    }
    // Number of entries, to prove nothing was written.
    std::size_t entries() const {
        return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(path_), {}));
    }

private:
    std::filesystem::path path_;
};

inline std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// PNG's chunk CRC (ISO 3309), for chunks the tests write by hand.
inline std::uint32_t crc32(const std::string& bytes) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (const char ch : bytes) {
        c ^= static_cast<unsigned char>(ch);
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

// A PNG that is only a signature and an IHDR chunk declaring width x height.
inline std::string pngHeaderOnly(std::uint32_t width, std::uint32_t height) {
    std::string b("\x89PNG\r\n\x1a\n", 8);
    auto be32 = [&](std::uint32_t v) {
        for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<char>((v >> s) & 0xFF));
    };
    be32(13);
    b += "IHDR";
    be32(width);
    be32(height);
    b += std::string("\x08\x00\x00\x00\x00", 5);  // 8-bit gray, no interlace
    be32(0);                                     // CRC left wrong on purpose: never read
    return b;
}

}  // namespace fs::test
