#include "sweep_controller.hpp"

namespace fs::services {

SweepController::SweepController(Submit submit, QObject* parent) : QObject(parent), submit_(std::move(submit)) {}

void SweepController::start(const QStringList& available, const QString& current, int repeats) {
    stop();
    queue_.clear();
    for (const QString& key : available)
        if (key != current) queue_ << key;
    queue_ << current;  // last, so the view ends on the chosen mode
    // The first run of a mode pays one-time costs (OpenCL compiles its kernel, caches fill): one
    // untimed warm-up each, then the median of the chosen count.
    repeats_ = repeats;
    total_ = static_cast<int>(queue_.size());
    next();
}

void SweepController::resultArrived(quint64 generation) {
    if (owns(generation)) next();
}

void SweepController::stop() {
    queue_.clear();
    if (total_ == 0) return;
    total_ = 0;
    emit ended();
}

void SweepController::next() {
    if (queue_.isEmpty()) {
        stop();
        return;
    }
    const QString key = queue_.takeFirst();
    const int done = total_ - static_cast<int>(queue_.size()) - 1;
    emit timing(key, done, total_, repeats_);
    generation_ = submit_(key, repeats_, 1);
}

}  // namespace fs::services
