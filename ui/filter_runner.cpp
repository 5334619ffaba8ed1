#include "filter_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>

#include "batch_runners.hpp"

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
    dropped_ = true;
}

bool FilterRunner::superseded() const {
    std::lock_guard lock(mutex_);
    return pending_.has_value() || dropped_;
}

void FilterRunner::waitForIdle() { pool_.waitForDone(); }

void FilterRunner::runExclusive(std::function<void()> job) {
    // One pool thread: the job waits for a workLoop in flight, and a later workLoop waits for it.
    (void)QtConcurrent::run(&pool_, std::move(job));
}

Backend* FilterRunner::find(const QString& backendId) const {
    for (const auto& b : backends_)
        if (QString::fromStdString(b->id()) == backendId) return b.get();
    return nullptr;
}

RunResult FilterRunner::runOne(const std::shared_ptr<const Image>& input, const FilterSpec& spec, const QString& backendId,
                               const QString& mode, const LaunchConfig& launch) {
    RunResult r;
    Backend* backend = find(backendId);
    if (!backend) {
        r.error = "unknown backend '" + backendId.toStdString() + "'";
        return r;
    }
    if (!input || input->empty()) {
        r.error = "no image loaded";
        return r;
    }
    ConstImageView view = input->cview();
    if (gpuHost_.load() == HostMemory::Pageable) {
        pinnedSource_.reset();
        pinned_ = HostInput{};  // frees the page-locked copy
    } else if (backend->hasLaunchConfig()) {
        if (pinnedSource_ != input) {
            pinned_ = hostInputFor(view, HostMemory::Pinned);
            pinnedSource_ = input;
        }
        if (!pinned_.ok()) {
            r.error = pinned_.error;
            return r;
        }
        view = pinned_.view;
    }
    try {  // run() promises not to throw; a broken promise must still not kill the app
        r = launch.isDefault() ? backend->run(spec, view, mode.toStdString())
                               : backend->runWithLaunch(spec, view, mode.toStdString(), launch);
    } catch (const std::exception& e) {
        r = RunResult{};
        r.error = std::string("backend threw: ") + e.what();
    }
    return r;
}

std::optional<RunResult> FilterRunner::runRepeated(const RunRequest& request, std::vector<double>& totalsMs) {
    const auto once = [&] { return runOne(request.input, request.spec, request.backend, request.mode, request.launch); };
    const int repeats = std::max(1, request.repeats);
    // A single run is never abandoned: live editing shows every result it gets, as before.
    const bool abandonable = request.warmups > 0 || repeats > 1;
    for (int i = 0; i < request.warmups; ++i) {
        if (RunResult warm = once(); !warm.ok()) return warm;
        if (superseded()) return std::nullopt;
    }
    std::vector<TimingRecord> timings;
    RunResult last;
    for (int i = 0; i < repeats; ++i) {
        if (i > 0 && abandonable && superseded()) return std::nullopt;
        last = once();
        if (!last.ok()) return last;
        timings.push_back(last.timing);
        totalsMs.push_back(last.timing.totalMs.value_or(0.0));
    }
    if (repeats > 1) {
        // The median run's own parts, so the stacked bar adds up to the total shown.
        std::vector<std::size_t> order(timings.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return totalsMs[a] < totalsMs[b]; });
        last.timing = timings[order[(order.size() - 1) / 2]];
    }
    return last;
}

void FilterRunner::runPipeline(const RunRequest& request, RunOutcome& outcome) {
    RunResult& r = outcome.result;
    r.timing.backend = request.backend.toStdString();
    r.timing.mode = request.mode.toStdString();
    Backend* backend = find(request.backend);
    if (!backend) r.error = "unknown backend '" + request.backend.toStdString() + "'";
    else if (!request.input || request.input->empty()) r.error = "no image loaded";
    if (!r.ok()) return;
    PipelineResult pr;
    try {  // runners promise not to throw, as backends do
        pr = makePipelineRunnerFor(*backend, request.mode.toStdString())->run(*request.pipeline, request.input->cview());
    } catch (const std::exception& e) {
        pr = PipelineResult{};
        pr.error = std::string("pipeline runner threw: ") + e.what();
    }
    double total = 0.0;
    for (const StepReport& step : pr.steps) total += step.timing.totalMs.value_or(0.0);
    r.timing.totalMs = total;
    r.error = pr.error;
    r.output = std::move(pr.output);
    outcome.steps = std::move(pr.steps);
    outcome.objectCount = pr.objectCount;
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
            dropped_ = false;
        }
        auto outcome = std::make_shared<RunOutcome>();
        outcome->generation = generation;
        if (request.pipeline) runPipeline(request, *outcome);
        else if (std::optional<RunResult> result = runRepeated(request, outcome->totalsMs)) outcome->result = std::move(*result);
        else continue;  // abandoned for a newer request
        const bool labels = request.pipeline && !request.pipeline->steps.empty() &&
                            request.pipeline->steps.back().op == StepOp::Label;
        if (outcome->result.ok())
            outcome->display = labels ? labelColours(outcome->result.output.cview()) : toDisplayImage(outcome->result.output.cview());
        if (!request.compareBackend.isEmpty() && !request.pipeline && outcome->result.ok()) {
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
