#pragma once
// Runs the built filterstudio-cli through /bin/sh for the end-to-end tests,
// with its exit code, standard output, standard error and wall time.
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "temp_dir.hpp"

namespace fs::test {

struct CliRun {
    int exitCode = -1;  // -1: killed by a signal
    std::string out, err;
    double seconds = 0;
};

// `s` as one word for /bin/sh.
inline std::string shellQuoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// `cli args`; the streams go through two files in `streams`, removed again.
// `prefix` runs before the binary in the same shell ("ulimit -f 8;", "VAR=x").
inline CliRun runCli(const std::string& cli, const std::string& args, const TempDir& streams,
                     const std::string& prefix = "") {
    const std::string out = streams.file(".stdout"), err = streams.file(".stderr");
    const std::string command = prefix + " " + shellQuoted(cli) + " " + args + " >" + shellQuoted(out) + " 2>" + shellQuoted(err);
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(("sh -c " + shellQuoted(command)).c_str());
    CliRun r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readBytes(out);
    r.err = readBytes(err);
    std::error_code ec;
    std::filesystem::remove(out, ec);
    std::filesystem::remove(err, ec);
    return r;
}

}  // namespace fs::test
