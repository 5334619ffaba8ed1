#include "lessons.hpp"

#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "main_window.hpp"
#include "mode_choices.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/pipeline_editor.hpp"

namespace fs::ui {

namespace {
const QString kPipeline = QStringLiteral("pipeline");
}

const QVector<Lesson>& lessons() {
    static const QVector<Lesson> all = {
        {QObject::tr("Sequential, parallel and the GPU's memories"), QObject::tr("Course paper: Table 1"),
         QStringLiteral(":/samples/building.jpg"), QStringLiteral("unsharp:7:0:1"), {},
         {QStringLiteral("cpu/reference"), QStringLiteral("cpu/parallel"), QStringLiteral("cuda/constant"), QStringLiteral("cuda/shared")},
         false,
         QObject::tr("A dense 7x7 kernel, 49 multiplications per output. In Timings, the single-thread loop (cpu/reference) "
                     "is the baseline; cpu/parallel runs the same loop on every core, so its speed-up is about the number "
                     "of cores. The paper's point is the GPU's: thousands of threads, one output each."),
         QObject::tr("cuda/constant (weights broadcast from constant memory) and cuda/shared (a tile and its halo per "
                     "block) far below the CPU bars, with the upload and download as parts of their own.")},
        {QObject::tr("Separable against dense"), QObject::tr("Thesis: the 1:1:1 tables (mask widths)"),
         QStringLiteral(":/samples/fruits.jpg"), QStringLiteral("gaussian:15:3"), {},
         {QStringLiteral("cpu/reference"), QStringLiteral("cpu/parallel"), QStringLiteral("cuda/global"), QStringLiteral("cuda/separable")},
         false,
         QObject::tr("A 15x15 Gaussian is a 15-tap column times a 15-tap row: 30 multiplications per output instead of "
                     "225. cpu/reference reads all 225; part of cpu/parallel's speed-up is this change of algorithm "
                     "(x7.5 fewer taps), the rest is threads and SIMD. Same machine, same result, different work."),
         QObject::tr("cuda/global reading all 225 taps against cuda/separable's two 1-D passes: the same x7.5 of "
                     "algorithm, now on the GPU.")},
        {QObject::tr("Shared memory against global"), QObject::tr("CUDA primer: the memory hierarchy"),
         QStringLiteral(":/samples/camera.png"), QStringLiteral("box:9"), {},
         {QStringLiteral("cpu/parallel"), QStringLiteral("cuda/global"), QStringLiteral("cuda/shared")}, false,
         QObject::tr("Each output of a 9x9 box reads 81 pixels, and neighbouring outputs read almost the same ones. "
                     "cuda/global reads them from device memory through the caches; cuda/shared loads a tile and its "
                     "halo into shared memory once per block and the threads read their neighbours from there. "
                     "cpu/parallel is this machine's baseline."),
         QObject::tr("cuda/shared's kernel part shorter than cuda/global's; hover the bars to read the parts.")},
        {QObject::tr("Transfers against kernel time"), QObject::tr("The transfer lessons (CUDA)"),
         QStringLiteral(":/samples/building.jpg"), QStringLiteral("gaussian:5:1.2"), {},
         {QStringLiteral("cpu/parallel"), QStringLiteral("cuda/global")}, false,
         QObject::tr("A GPU run is upload, kernel and download. For a small kernel the copies over PCIe take longer "
                     "than the filter itself. In the Launch panel set Host memory to pinned and run again (F5): the "
                     "upload gets shorter, the kernel does not."),
         QObject::tr("cuda/global's bar split into upload, kernel and download, the transfers the larger part.")},
        {QObject::tr("Counting objects: a pipeline"), QObject::tr("Connected components in CUDA"),
         QStringLiteral(":/samples/camera.png"), QStringLiteral("gaussian:5:0"), QStringLiteral(":/pipelines/count-bright-objects.json"),
         {}, false,
         QObject::tr("Grayscale, blur, threshold, label: the Pipeline dock lists each step's time and the number of "
                     "objects, and the image shows each object in a colour of its own."),
         QObject::tr("with a CUDA mode chosen, Run pipeline (Ctrl+R) labels on the device with union-find.")},
        {QObject::tr("Exact against approximate"), QObject::tr("Tensor cores: a convolution as matrix products"),
         QStringLiteral(":/samples/fruits.jpg"), QStringLiteral("gaussian:9:2"), {},
         {QStringLiteral("cpu/parallel"), QStringLiteral("cuda/tensor")}, true,
         QObject::tr("The Difference view compares the result with the CPU reference: black where they agree, and the "
                     "caption gives the largest difference. Exact modes stay black."),
         QObject::tr("cuda/tensor multiplies in TF32 on tensor cores: its time beside the others, and in Difference a "
                     "faint pattern with the measured error under the image.")},
    };
    return all;
}

LessonPlayer::LessonPlayer(MainWindow* window) : QDialog(window), window_(window) {
    setWindowTitle(tr("Lesson"));
    setObjectName(QStringLiteral("lessonPlayer"));
    title_ = new QLabel;
    title_->setWordWrap(true);
    QFont bold = title_->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    title_->setFont(bold);
    body_ = new QLabel;
    body_->setWordWrap(true);
    progress_ = new QLabel;
    progress_->setObjectName(QStringLiteral("lessonProgress"));
    progress_->setWordWrap(true);
    previous_ = new QPushButton(tr("Previous"));
    next_ = new QPushButton(tr("Next"));
    auto* again = new QPushButton(tr("Run again"));
    auto* close = new QPushButton(tr("Close"));
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {previous_, again, next_, close}) buttons->addWidget(b);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(body_, 1);
    layout->addWidget(progress_);
    layout->addLayout(buttons);
    setMinimumWidth(380);
    setMaximumWidth(560);
    connect(previous_, &QPushButton::clicked, this, [this] { start(index_ - 1); });
    connect(next_, &QPushButton::clicked, this, [this] { start(index_ + 1); });
    connect(again, &QPushButton::clicked, this, [this] { start(index_); });
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    connect(window_, &MainWindow::resultShown, this, &LessonPlayer::arrived);
    connect(window_, &MainWindow::runFailed, this, &LessonPlayer::failed);
}

void LessonPlayer::start(int index) {
    if (index < 0 || index >= lessons().size()) return;
    const Lesson& lesson = lessons()[index];
    index_ = index;
    ran_.clear();
    skipped_.clear();
    failures_.clear();
    queue_.clear();
    for (const QString& key : lesson.modes)
        (window_->backendChooser()->isAvailable(key) ? queue_ : skipped_) << key;
    QString why;
    if (!window_->kernelEditor()->applyPresetText(lesson.kernel, &why)) failures_ << why;
    window_->imageView()->setDisplayMode(lesson.difference ? widgets::ImageView::DisplayMode::Difference
                                                           : widgets::ImageView::DisplayMode::Result);
    if (!lesson.pipeline.isEmpty()) {
        QFile file(lesson.pipeline);
        if (!file.open(QIODevice::ReadOnly) || !window_->pipelineEditor()->loadJson(file.readAll(), &why)) failures_ << why;
        queue_ << kPipeline;
    }
    waitingFor_.clear();
    refresh();
    show();
    raise();
    // The image opens first (the run it starts is superseded), then each mode runs measured.
    const auto before = window_->input();
    opening_ = true;  // results for the image still shown while this one decodes are not the lesson's
    window_->openSample(lesson.sample);
    opening_ = false;
    if (window_->input() == before) {
        failures_ << tr("could not open %1").arg(lesson.sample);
        queue_.clear();
    }
    runNext();
}

void LessonPlayer::runNext() {
    if (queue_.isEmpty()) {
        waitingFor_.clear();
        refresh();
        emit stepFinished(index_);
        return;
    }
    waitingFor_ = queue_.takeFirst();
    refresh();
    if (waitingFor_ == kPipeline) {
        window_->runPipeline();
        return;
    }
    window_->selectMode(waitingFor_);
    window_->runMeasured();  // a bar in Timings for each mode, a live frame included
}

void LessonPlayer::arrived() {
    if (waitingFor_.isEmpty() || opening_) return;
    const auto outcome = window_->lastOutcome();
    // Only the result awaited: a live frame (no host outcome) or another mode's result is not.
    if (!outcome) return;
    const bool pipeline = outcome->request.pipeline.has_value();
    if (waitingFor_ == kPipeline ? !pipeline : pipeline || outcome->request.backend + '/' + outcome->request.mode != waitingFor_)
        return;
    ran_ << waitingFor_;
    runNext();
}

void LessonPlayer::failed(const QString& message) {
    if (waitingFor_.isEmpty() || opening_) return;
    failures_ << tr("%1 failed: %2").arg(waitingFor_, message);
    runNext();
}

QString LessonPlayer::text() const { return title_->text() + '\n' + body_->text() + '\n' + progress_->text(); }

void LessonPlayer::refresh() {
    const Lesson& lesson = lessons()[index_];
    title_->setText(tr("Lesson %1 of %2: %3").arg(index_ + 1).arg(lessons().size()).arg(lesson.title));
    body_->setText(lesson.look + tr("\n\nFrom docs/teaching.md: %1.").arg(lesson.source));
    QStringList lines;
    if (!waitingFor_.isEmpty()) lines << tr("Running %1...").arg(waitingFor_);
    else if (!ran_.isEmpty()) lines << tr("Ran %1. Compare them in Timings.").arg(ran_.join(QStringLiteral(", ")));
    if (!skipped_.isEmpty()) {
        QStringList why;
        for (const QString& key : skipped_) why << tr("%1 (%2)").arg(key, whyUnavailable(window_->backendChooser()->choices(), key));
        lines << tr("Not on this machine: %1. On a GPU this step would show %2").arg(why.join(QStringLiteral(", ")), lesson.gpu);
    } else if (!lesson.gpu.isEmpty() && lesson.modes.isEmpty()) {
        lines << tr("On a GPU: %1").arg(lesson.gpu);
    }
    lines << failures_;
    progress_->setText(lines.join('\n'));
    previous_->setEnabled(index_ > 0);
    next_->setEnabled(index_ + 1 < lessons().size());
}

}  // namespace fs::ui
