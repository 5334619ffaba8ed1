#include "document.hpp"

#include <QFileInfo>

namespace fs::services {

void Document::setLoaded(std::shared_ptr<const Image> image, const QString& path) {
    loaded_ = std::move(image);
    path_ = path;
    setInput(loaded_);
}

void Document::setInput(std::shared_ptr<const Image> input) {
    input_ = std::move(input);
    ++serial_;
    outcome_.reset();
}

QString Document::fileName() const { return QFileInfo(path_).fileName(); }

}  // namespace fs::services
