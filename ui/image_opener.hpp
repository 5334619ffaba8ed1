#pragma once
// Reading image files for the studio: decoding off the GUI thread behind a progress dialog whose Cancel
// gives up waiting, bundled samples through a private copy, and the recent-files list.
#include <QObject>
#include <QString>
#include <optional>

#include "fs/image.hpp"

class QMenu;
class QMimeData;
class QWidget;

namespace fs::ui {

class ImageOpener : public QObject {
    Q_OBJECT
public:
    // `recent` lists the recent files; choosing one asks openRequested().
    ImageOpener(QWidget* window, QMenu* recent);

    // The decoded image; nothing when cancelled (then `error` stays empty) or unreadable (`error` says why).
    std::optional<Image> load(const QString& path, QString* error);
    bool opening() const { return opening_; }
    void cancel();  // the load in progress returns nothing
    // A file the user opened: remembered among the recent files and as the folder to open from next.
    void opened(const QString& path);
    // A private copy of a bundled sample (":/samples/x.jpg") that load() can read; empty and `error` set on failure.
    QString sampleCopy(const QString& resource, QString* error) const;
    // File dialogs, starting in the folder last opened from: a file to open, and where to save the result
    // of `inputPath` (TIFF for float results). Empty when the user cancels.
    QString askOpenPath() const;
    QString askSavePath(const QString& inputPath, bool floatResult, bool eightBit) const;
    // Whether to go on with `acceptText` after a warning: Cancel is the default, so a stray Enter never
    // overwrites or switches anything.
    bool confirm(const QString& title, const QString& question, const QString& acceptText) const;
    // The local file a drag carries (its first URL); empty when it carries none.
    static QString droppedFile(const QMimeData* mime);

signals:
    void openRequested(const QString& path);
    void cancelled();  // cancel() during a load

private:
    void rebuildRecent();

    QWidget* window_;
    QMenu* recent_;
    bool opening_ = false;
};

}  // namespace fs::ui
