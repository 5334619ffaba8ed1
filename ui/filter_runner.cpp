#include "filter_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>

#include "batch_runners.hpp"
#include "fs/io/image_io.hpp"

namespace fs::ui {

QString describeOutcome(const RunOutcome& outcome) {
    QString info = QStringLiteral("%1/%2: %3")
                       .arg(outcome.request.backend, outcome.request.mode, QString::fromStdString(outcome.result.timing.toString()));
    if (outcome.compare) {
        if (!outcome.compare->ok()) info += QObject::tr("; compare run failed: %1").arg(QString::fromStdString(outcome.compare->error));
        else if (!outcome.difference.error.isEmpty()) info += "; " + outcome.difference.error;
        else info += "; " + differenceCaption(outcome);
    }
    if (outcome.totalsMs.size() > 1) {
        const auto [fastest, slowest] = std::minmax_element(outcome.totalsMs.begin(), outcome.totalsMs.end());
        info += QObject::tr("; median of %1 runs after %2 warm-up, range %3..%4 ms")
                    .arg(outcome.totalsMs.size())
                    .arg(outcome.request.warmups)
                    .arg(*fastest, 0, 'f', 3)
                    .arg(*slowest, 0, 'f', 3);
    }
    return info;
}

QString differenceCaption(const RunOutcome& outcome) {
    return QObject::tr("vs %1/%2: max abs error %3, %4 values differ")
        .arg(outcome.request.compareBackend, outcome.request.compareMode)
        .arg(outcome.difference.maxAbs, 0, 'g', 6)
        .arg(outcome.difference.differingValues);
}

bool saveOutcome(const RunOutcome& outcome, const QString& path, bool eightBit, std::string* why) {
    const Image& out = outcome.result.output;
    const auto& pipeline = outcome.request.pipeline;
    const bool labels = pipeline && !pipeline->steps.empty() && pipeline->steps.back().op == StepOp::Label;
    const std::string file = path.toStdString();
    try {
        if (eightBit && labels) return io::saveImage(file, fromDisplayImage(outcome.display).cview(), why);
        if (eightBit && out.depth() != Depth::U8) return io::saveImage(file, toEightBit(out.cview()).cview(), why);
        return io::saveImage(file, out.cview(), why);
    } catch (const std::exception& e) {
        if (why) *why = e.what();
        return false;
    }
}

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
        if (working_ && control_ && stopsInFlight(request)) control_->cancel();
        pending_ = std::move(request);
        pendingGeneration_ = generation;
        if (!working_) {
            start = working_ = true;
            busySince_ = std::chrono::steady_clock::now();
        }
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

void FilterRunner::cancel() {
    std::lock_guard lock(mutex_);
    pending_.reset();
    dropped_ = true;
    if (control_) control_->cancel();
}

double FilterRunner::progress() const {
    std::lock_guard lock(mutex_);
    return control_ ? control_->progress() : 0.0;
}

double FilterRunner::busySeconds() const {
    std::lock_guard lock(mutex_);
    return working_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - busySince_).count() : 0.0;
}

namespace {
QString keyOf(const RunRequest& r) {
    return (r.pipeline ? QStringLiteral("pipeline:") : QString()) + r.backend + QLatin1Char('/') + r.mode;
}
// Longer than this, a run is no live preview: a new edit stops it rather than wait for its result.
constexpr std::chrono::milliseconds kLiveRunLimit{1000};
}  // namespace

bool FilterRunner::stopsInFlight(const RunRequest& next) const {
    // Its result would be dropped (another image), replaced at once (another mode), abandoned anyway
    // (a timing run's next repeat), or has kept the user waiting too long already.
    return next.input != inFlightInput_ || keyOf(next) != inFlightKey_ || inFlightTimed_ ||
           std::chrono::steady_clock::now() - inFlightSince_ > kLiveRunLimit;
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
        std::shared_ptr<RunControl> control;
        {
            std::lock_guard lock(mutex_);
            if (!pending_) {
                working_ = false;
                control_.reset();
                inFlightInput_.reset();
                break;
            }
            request = std::move(*pending_);
            generation = pendingGeneration_;
            pending_.reset();
            dropped_ = false;
            control = control_ = std::make_shared<RunControl>();
            inFlightInput_ = request.input;
            inFlightKey_ = keyOf(request);
            inFlightTimed_ = request.warmups > 0 || request.repeats > 1;
            inFlightSince_ = std::chrono::steady_clock::now();
        }
        const ScopedRunControl scoped(control.get());  // the backends on this thread look at it
        auto outcome = std::make_shared<RunOutcome>();
        outcome->generation = generation;
        if (request.pipeline) runPipeline(request, *outcome);
        else if (std::optional<RunResult> result = runRepeated(request, outcome->totalsMs)) outcome->result = std::move(*result);
        else continue;  // abandoned for a newer request
        if (control->cancelled()) continue;  // stopped: cancel() or a newer request
        const bool labels = request.pipeline && !request.pipeline->steps.empty() &&
                            request.pipeline->steps.back().op == StepOp::Label;
        if (outcome->result.ok())
            outcome->display = labels ? labelColours(outcome->result.output.cview()) : toDisplayImage(outcome->result.output.cview());
        if (!request.compareBackend.isEmpty() && !request.pipeline && outcome->result.ok()) {
            outcome->compare = runOne(request.input, request.spec, request.compareBackend, request.compareMode);
            if (outcome->compare->ok())
                outcome->difference = difference(outcome->result.output.cview(), outcome->compare->output.cview());
        }
        if (control->cancelled()) continue;  // stopped during the comparison run
        outcome->request = std::move(request);
        emit finished(outcome);
    }
    emit busyChanged(false);
}

}  // namespace fs::ui
