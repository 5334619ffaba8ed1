#include "filter_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace fs::ui {

FilterRunner::FilterRunner(std::vector<std::unique_ptr<Backend>> backends, QObject* parent)
    : QObject(parent), backends_(std::move(backends)) {
    qRegisterMetaType<std::shared_ptr<const fs::ui::RunOutcome>>();
    pool_.setMaxThreadCount(1);  // backends are not asked to run concurrently
}

FilterRunner::~FilterRunner() {
    {
        std::lock_guard lock(mutex_);
        pending_.reset();
    }
    pool_.waitForDone();
}

quint64 FilterRunner::submit(RunRequest request) {
    bool start = false;
    quint64 generation = 0;
    {
        std::lock_guard lock(mutex_);
        generation = ++generation_;
        pending_ = std::move(request);
        pendingGeneration_ = generation;
        if (!working_) start = working_ = true;
    }
    if (start) {
        emit busyChanged(true);
        (void)QtConcurrent::run(&pool_, [this] { workLoop(); });
    }
    return generation;
}

bool FilterRunner::busy() const {
    std::lock_guard lock(mutex_);
    return working_;
}

void FilterRunner::dropPending() {
    std::lock_guard lock(mutex_);
    pending_.reset();
}

void FilterRunner::waitForIdle() { pool_.waitForDone(); }

RunResult FilterRunner::runOne(const std::shared_ptr<const Image>& input, const FilterSpec& spec, const QString& backendId,
                               const QString& mode) {
    RunResult r;
    Backend* backend = nullptr;
    for (const auto& b : backends_)
        if (QString::fromStdString(b->id()) == backendId) backend = b.get();
    if (!backend) {
        r.error = "unknown backend '" + backendId.toStdString() + "'";
        return r;
    }
    if (!input || input->empty()) {
        r.error = "no image loaded";
        return r;
    }
    try {  // run() promises not to throw; a broken promise must still not kill the app
        r = backend->run(spec, input->cview(), mode.toStdString());
    } catch (const std::exception& e) {
        r = RunResult{};
        r.error = std::string("backend threw: ") + e.what();
    }
    return r;
}

void FilterRunner::workLoop() {
    for (;;) {
        RunRequest request;
        quint64 generation = 0;
        {
            std::lock_guard lock(mutex_);
            if (!pending_) {
                working_ = false;
                break;
            }
            request = std::move(*pending_);
            generation = pendingGeneration_;
            pending_.reset();
        }
        auto outcome = std::make_shared<RunOutcome>();
        outcome->generation = generation;
        outcome->result = runOne(request.input, request.spec, request.backend, request.mode);
        if (outcome->result.ok()) outcome->display = toDisplayImage(outcome->result.output.cview());
        if (!request.compareBackend.isEmpty() && outcome->result.ok()) {
            outcome->compare = runOne(request.input, request.spec, request.compareBackend, request.compareMode);
            if (outcome->compare->ok())
                outcome->difference = difference(outcome->result.output.cview(), outcome->compare->output.cview());
        }
        outcome->request = std::move(request);
        emit finished(outcome);
    }
    emit busyChanged(false);
}

}  // namespace fs::ui
