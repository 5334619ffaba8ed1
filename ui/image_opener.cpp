#include "image_opener.hpp"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QProgressDialog>
#include <QSettings>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include "fs/io/image_io.hpp"

namespace fs::ui {

namespace {

constexpr int kMaxRecent = 8;
const char* kImageFilter =
    QT_TRANSLATE_NOOP("ImageOpener", "Images (*.png *.jpg *.jpeg *.bmp *.tif *.tiff *.pgm *.ppm *.pnm *.webp *.pfm);;All files (*)");

QString lastDir() { return QSettings().value(QStringLiteral("files/lastDir"), QDir::homePath()).toString(); }

// Decoding runs on a pool of its own: Qt's raster engine spreads large fills over the global pool and waits
// for them, so a decode of several seconds there (one cancelled, still running) froze the window's painting.
QThreadPool& decodePool() {
    static QThreadPool pool;
    return pool;
}

// fs_io reads files, so bundled sample bytes go through a temporary copy here.
QTemporaryDir& samplesTempDir() {
    static QTemporaryDir dir;
    return dir;
}

}  // namespace

ImageOpener::ImageOpener(QWidget* window, QMenu* recent) : QObject(window), window_(window), recent_(recent) { rebuildRecent(); }

std::optional<Image> ImageOpener::load(const QString& path, QString* error) {
    if (opening_) return std::nullopt;  // one open at a time: the dialog of the first is up
    // Large photographs take seconds to decode: off the GUI thread, which keeps drawing and can cancel.
    QFutureWatcher<io::LoadResult> watcher;
    QEventLoop wait;
    connect(&watcher, &QFutureWatcherBase::finished, &wait, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run(&decodePool(), [file = path.toStdString()] { return io::loadImage(file); }));
    bool gaveUp = false;
    if (!watcher.isFinished()) {
        QProgressDialog progress(tr("Opening %1...").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0, window_);
        progress.setWindowModality(Qt::WindowModal);
        progress.setMinimumDuration(300);
        const auto giveUp = [&] {
            gaveUp = true;
            wait.quit();
        };
        connect(&progress, &QProgressDialog::canceled, &wait, giveUp);
        connect(this, &ImageOpener::cancelled, &wait, giveUp);
        opening_ = true;
        wait.exec();
        opening_ = false;
    }
    // The decoder cannot be interrupted: it finishes in the background and its image is dropped.
    if (gaveUp && !watcher.isFinished()) return std::nullopt;
    io::LoadResult loaded = watcher.future().takeResult();
    if (!loaded.ok()) {
        if (error) *error = QString::fromStdString(loaded.error);
        return std::nullopt;
    }
    return std::move(loaded.image);
}

void ImageOpener::cancel() {
    if (opening_) emit cancelled();
}

void ImageOpener::opened(const QString& path) {
    // Bundled samples open from a private temporary copy: not worth remembering.
    if (path.startsWith(samplesTempDir().path() + QLatin1Char('/'))) return;
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("files/recent")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(QStringLiteral("files/recent"), recent);
    settings.setValue(QStringLiteral("files/lastDir"), QFileInfo(path).absolutePath());
    rebuildRecent();
}

QString ImageOpener::sampleCopy(const QString& resource, QString* error) const {
    const QString target = samplesTempDir().filePath(QFileInfo(resource).fileName());
    if (!QFile::exists(target) && !QFile::copy(resource, target)) {
        if (error) *error = tr("could not copy %1 to %2").arg(resource, target);
        return {};
    }
    return target;
}

QString ImageOpener::askOpenPath() const {
    return QFileDialog::getOpenFileName(window_, tr("Open image"), lastDir(), tr(kImageFilter));
}

QString ImageOpener::askSavePath(const QString& inputPath, bool floatResult, bool eightBit) const {
    const QString suggested = QDir(lastDir()).filePath(QFileInfo(inputPath).completeBaseName() + QStringLiteral("-filtered") +
                                                       (floatResult ? QStringLiteral(".tif") : QStringLiteral(".png")));
    return QFileDialog::getSaveFileName(window_, eightBit ? tr("Save result as 8-bit") : tr("Save result"), suggested,
                                        tr(kImageFilter));
}

void ImageOpener::rebuildRecent() {
    recent_->clear();
    const QStringList recent = QSettings().value(QStringLiteral("files/recent")).toStringList();
    for (const QString& path : recent) recent_->addAction(path, this, [this, path] { emit openRequested(path); });
    recent_->setEnabled(!recent.isEmpty());
}

bool ImageOpener::confirm(const QString& title, const QString& question, const QString& acceptText) const {
    QMessageBox box(QMessageBox::Warning, title, question, QMessageBox::Cancel, window_);
    QPushButton* accept = box.addButton(acceptText, QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == accept;
}

QString ImageOpener::droppedFile(const QMimeData* mime) {
    const QList<QUrl> urls = mime->hasUrls() ? mime->urls() : QList<QUrl>();
    return !urls.isEmpty() && urls.front().isLocalFile() ? urls.front().toLocalFile() : QString();
}

}  // namespace fs::ui
