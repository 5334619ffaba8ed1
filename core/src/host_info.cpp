#include "fs/host_info.hpp"

#include <fstream>
#include <sstream>

namespace fs {

std::string nvidiaModuleVersion(const std::string& versionFile) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 ...", or
    // "... Open Kernel Module for x86_64  580.95.05 ...": the first number with a dot after the marker.
    std::ifstream in(versionFile);
    std::string line;
    if (!in || !std::getline(in, line)) return {};
    const std::string marker = "Kernel Module";
    const std::size_t at = line.find(marker);
    if (at == std::string::npos) return {};
    std::istringstream rest(line.substr(at + marker.size()));
    for (std::string word; rest >> word;)
        if (word.find_first_not_of("0123456789.") == std::string::npos && word.find('.') != std::string::npos)
            return word;
    return {};
}

}  // namespace fs
