#pragma once
// The studio's document: the image as read from its file, the image the filter sees (after channel
// handling), the filter last run on it and the outcome shown. Each new input gets a new serial, so
// timings of two inputs are never compared.
#include <QString>
#include <cstdint>
#include <memory>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

namespace fs::ui {
struct RunOutcome;  // the runner's result as the window shows it
}

namespace fs::services {

class Document {
public:
    // A freshly read image and the file it came from; the input is the image itself until setInput().
    void setLoaded(std::shared_ptr<const Image> image, const QString& path);
    // What the filter sees from now on: forgets the outcome of the previous input.
    void setInput(std::shared_ptr<const Image> input);

    const std::shared_ptr<const Image>& loaded() const { return loaded_; }
    const std::shared_ptr<const Image>& input() const { return input_; }
    bool hasImage() const { return input_ != nullptr; }
    const QString& path() const { return path_; }
    QString fileName() const;
    std::uint64_t serial() const { return serial_; }

    // The filter of the latest run started (the frame being drawn in the live preview).
    const FilterSpec& spec() const { return spec_; }
    void setSpec(const FilterSpec& spec) { spec_ = spec; }

    const std::shared_ptr<const ui::RunOutcome>& outcome() const { return outcome_; }
    void setOutcome(std::shared_ptr<const ui::RunOutcome> outcome) { outcome_ = std::move(outcome); }

private:
    std::shared_ptr<const Image> loaded_;
    std::shared_ptr<const Image> input_;
    QString path_;
    std::uint64_t serial_ = 0;
    FilterSpec spec_;
    std::shared_ptr<const ui::RunOutcome> outcome_;
};

}  // namespace fs::services
