#include "fs/border.hpp"

#include <cmath>
#include <cstdlib>

namespace fs {

const char* borderModeName(BorderMode m) {
    switch (m) {
    case BorderMode::Replicate: return "replicate";
    case BorderMode::Reflect101: return "reflect101";
    case BorderMode::Constant: return "constant";
    case BorderMode::Wrap: return "wrap";
    }
    return "?";
}

bool parseBorder(const std::string& text, Border& out, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error) *error = why;
        return false;
    };
    Border b;
    if (text == "replicate") b.mode = BorderMode::Replicate;
    else if (text == "reflect101" || text == "reflect-101") b.mode = BorderMode::Reflect101;
    else if (text == "wrap") b.mode = BorderMode::Wrap;
    else if (text == "constant") b.mode = BorderMode::Constant;
    else if (text.rfind("constant:", 0) == 0) {
        const std::string num = text.substr(9);
        char* end = nullptr;
        const float v = std::strtof(num.c_str(), &end);
        if (num.empty() || end == nullptr || *end != '\0' || !std::isfinite(v))
            return fail("border constant value '" + num + "' is not a finite number");
        b.mode = BorderMode::Constant;
        b.value = v;
    } else {
        return fail("unknown border mode '" + text + "' (expected replicate, reflect101, constant[:V] or wrap)");
    }
    out = b;
    return true;
}

}  // namespace fs
