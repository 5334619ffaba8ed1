#include "race_view.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "fs/widgets/image_view.hpp"
#include "live_preview.hpp"
#include "mode_choices.hpp"
#include "preview_service.hpp"
#include "video_lane.hpp"

namespace fs::ui {

RaceView::Defaults RaceView::defaultsFor(const QVector<widgets::ModeChoice>& choices, const BackendList& backends) {
    Defaults d;
    const QString cpuFastest = cpuDefaultKey(choices), reference = referenceKey(choices);
    d.left = cpuFastest.isEmpty() ? reference : cpuFastest;
    const QString fastest = fastestExactKey(choices, backends);
    if (backendOf(fastest) != backendOf(d.left)) {
        d.right = fastest;
        return d;
    }
    // No GPU can run: the single-thread reference races the fastest CPU mode, and the view says why.
    d.right = reference;
    QString why = tr("this build has no GPU backend");
    for (const auto& b : backends)
        if (b->hasLaunchConfig())
            why = b->available() ? tr("%1 has no exact mode here").arg(QString::fromStdString(b->displayName()))
                                 : QString::fromStdString(b->unavailableReason());
    d.note = tr("No GPU in this race: %1. Two CPU modes race instead.").arg(why);
    return d;
}

RaceView::RaceView(const std::function<BackendList()>& makeBackends, std::function<FilterSpec()> specSource,
                   QWidget* transport, QWidget* parent)
    : QWidget(parent) {
    // Laid over the window rather than a window of its own: some platforms
    // (eglfs on a GPU machine, kiosks) draw one OpenGL window at a time.
    setObjectName(QStringLiteral("raceView"));
    setAutoFillBackground(true);
    auto* layout = new QVBoxLayout(this);
    auto* header = new QHBoxLayout;
    header->addWidget(transport, 1);
    auto* close = new QPushButton(tr("Close race"));
    close->setObjectName(QStringLiteral("raceClose"));
    close->setToolTip(tr("Back to the window's own view"));
    connect(close, &QPushButton::clicked, this, &QWidget::hide);
    header->addWidget(close);
    note_ = new QLabel;
    note_->setObjectName(QStringLiteral("raceNote"));
    note_->setWordWrap(true);
    note_->setStyleSheet(QStringLiteral("color:#a51d2d"));
    layout->addLayout(header);
    layout->addWidget(note_);
    auto* halves = new QGridLayout;
    layout->addLayout(halves, 1);

    BackendList first = makeBackends();
    const QVector<widgets::ModeChoice> choices = choicesOf(first);
    const Defaults defaults = defaultsFor(choices, first);
    note_->setText(defaults.note);
    note_->setVisible(!defaults.note.isEmpty());
    for (int side = 0; side < 2; ++side) {
        views_[side] = new widgets::ImageView;
        views_[side]->setDisplayMode(widgets::ImageView::DisplayMode::Result);
        views_[side]->setMinimumSize(320, 200);
        previews_[side] = new services::PreviewService(this);
        lanes_[side] = new VideoLane(side == 0 ? std::move(first) : makeBackends(), views_[side], previews_[side], this);
        lanes_[side]->setSpecSource(specSource);
        choosers_[side] = new QComboBox;
        choosers_[side]->setObjectName(side == 0 ? QStringLiteral("raceLeftMode") : QStringLiteral("raceRightMode"));
        choosers_[side]->setToolTip(tr("The mode this half runs each frame through"));
        for (const widgets::ModeChoice& c : choices) {
            choosers_[side]->addItem(c.key(), c.key());
            if (!c.mode.available) {
                // Listed, greyed, with the reason: as the backend chooser does.
                choosers_[side]->setItemData(choosers_[side]->count() - 1, QString::fromStdString(c.mode.unavailableReason),
                                             Qt::ToolTipRole);
                choosers_[side]->setItemData(choosers_[side]->count() - 1, 0, Qt::UserRole - 1);
            }
        }
        titles_[side] = new QLabel;
        fps_[side] = new QLabel(tr("- fps"));
        fps_[side]->setObjectName(side == 0 ? QStringLiteral("raceLeftFps") : QStringLiteral("raceRightFps"));
        splits_[side] = new QLabel;
        splits_[side]->setWordWrap(true);
        splits_[side]->setObjectName(side == 0 ? QStringLiteral("raceLeftSplit") : QStringLiteral("raceRightSplit"));
        auto* head = new QHBoxLayout;
        head->addWidget(titles_[side]);
        head->addWidget(choosers_[side]);
        head->addStretch(1);
        head->addWidget(fps_[side]);
        halves->addLayout(head, 0, side);
        halves->addWidget(views_[side], 1, side);
        halves->addWidget(splits_[side], 2, side);
        halves->setColumnStretch(side, 1);
        connect(choosers_[side], &QComboBox::currentIndexChanged, this, [this, side] {
            lanes_[side]->setChoice(choosers_[side]->currentData().toString());
            lanes_[side]->reset();
            lanes_[side]->rerun();
            updateLabels(side);
        });
        connect(lanes_[side], &VideoLane::frameShown, this, [this, side] { updateLabels(side); });
        connect(lanes_[side], &VideoLane::failed, this, &RaceView::failed);
    }
    halves->setRowStretch(1, 1);
    titles_[0]->setText(tr("Left:"));
    titles_[1]->setText(tr("Right:"));
    selectMode(0, defaults.left);
    selectMode(1, defaults.right);
    lanes_[0]->setChoice(defaults.left);
    lanes_[1]->setChoice(defaults.right);
    applyFonts();
    updateLabels(0);
    updateLabels(1);
}

RaceView::~RaceView() {
    // The views' GL contexts must still exist while the interop registrations go.
    for (int side = 0; side < 2; ++side) shutdownPreview(*previews_[side], views_[side]);
}

bool RaceView::selectMode(int side, const QString& key) {
    const int index = choosers_[side]->findData(key);
    if (index < 0) return false;
    choosers_[side]->setCurrentIndex(index);
    lanes_[side]->setChoice(key);
    return true;
}

QString RaceView::note() const { return note_->text(); }

void RaceView::offer(const services::VideoFrame& frame, long long sourceDropped) {
    sourceDropped_ = sourceDropped;
    for (VideoLane* lane : lanes_) lane->offer(frame);
}

void RaceView::rerun() {
    for (VideoLane* lane : lanes_) lane->rerun();
}

void RaceView::reset() {
    sourceDropped_ = 0;
    for (int side = 0; side < 2; ++side) {
        lanes_[side]->reset();
        updateLabels(side);
    }
}

void RaceView::setLargeText(bool on) {
    largeText_ = on;
    applyFonts();
}

void RaceView::applyFonts() {
    // As the Presentation layout enlarges the view's words; the frame rates are the headline either way.
    QFont base;
    if (largeText_) base.setPointSizeF(base.pointSizeF() * 1.35);
    setFont(base);
    QFont headline = base;
    headline.setPointSizeF(base.pointSizeF() * 2.2);
    headline.setBold(true);
    for (QLabel* label : fps_) label->setFont(headline);
    QFont title = base;
    title.setPointSizeF(base.pointSizeF() * 1.3);
    for (QComboBox* box : choosers_) box->setFont(title);
    for (QLabel* label : titles_) label->setFont(title);
    note_->setFont(title);
    QFont split = base;
    split.setPointSizeF(base.pointSizeF() * 1.15);
    for (QLabel* label : splits_) label->setFont(split);
    for (widgets::ImageView* view : views_) view->setFont(base);
}

void RaceView::updateLabels(int side) {
    const VideoLane* lane = lanes_[side];
    fps_[side]->setText(tr("%1 fps").arg(lane->framesPerSecond()));
    if (lane->shown() == 0) {
        splits_[side]->setText(tr("per frame: waiting for a frame"));
        return;
    }
    splits_[side]->setText(tr("per frame: %1\n%2 frames shown, %3 dropped")
                               .arg(describeSplit(lane->split()))
                               .arg(lane->shown())
                               .arg(lane->dropped() + sourceDropped_));
}

void RaceView::hideEvent(QHideEvent* e) {
    QWidget::hideEvent(e);
    emit hidden();
}

}  // namespace fs::ui
