#include "fs/widgets/preset_names.hpp"

#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QLineEdit>
#include <QTimer>

namespace fs::widgets {

namespace {

struct FriendlyName {
    const char* id;
    const char* name;
};

const FriendlyName kNames[] = {
    {"identity", QT_TRANSLATE_NOOP("Presets", "Identity (no change)")},
    {"box", QT_TRANSLATE_NOOP("Presets", "Box blur (mean)")},
    {"gaussian", QT_TRANSLATE_NOOP("Presets", "Gaussian blur")},
    {"sobel-x", QT_TRANSLATE_NOOP("Presets", "Sobel, horizontal gradient")},
    {"sobel-y", QT_TRANSLATE_NOOP("Presets", "Sobel, vertical gradient")},
    {"sobel-mag", QT_TRANSLATE_NOOP("Presets", "Sobel edge strength")},
    {"scharr-x", QT_TRANSLATE_NOOP("Presets", "Scharr, horizontal gradient")},
    {"scharr-y", QT_TRANSLATE_NOOP("Presets", "Scharr, vertical gradient")},
    {"prewitt-x", QT_TRANSLATE_NOOP("Presets", "Prewitt, horizontal gradient")},
    {"prewitt-y", QT_TRANSLATE_NOOP("Presets", "Prewitt, vertical gradient")},
    {"laplacian-4", QT_TRANSLATE_NOOP("Presets", "Laplacian (4 neighbours)")},
    {"laplacian-8", QT_TRANSLATE_NOOP("Presets", "Laplacian (8 neighbours)")},
    {"log", QT_TRANSLATE_NOOP("Presets", "Laplacian of Gaussian")},
    {"sharpen", QT_TRANSLATE_NOOP("Presets", "Sharpen")},
    {"emboss", QT_TRANSLATE_NOOP("Presets", "Emboss")},
    {"unsharp", QT_TRANSLATE_NOOP("Presets", "Unsharp mask")},
};

// Focus by click or Tab selects the whole text, so a new preset replaces the old one instead of joining it.
class SelectAllOnFocus : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::FocusIn)
            if (auto* edit = qobject_cast<QLineEdit*>(watched)) QTimer::singleShot(0, edit, &QLineEdit::selectAll);
        return false;
    }
};

}  // namespace

QString presetDisplayName(const QString& presetId) {
    for (const FriendlyName& n : kNames)
        if (presetId == QLatin1String(n.id)) return QCoreApplication::translate("Presets", n.name);
    return presetId;
}

void setUpPresetTextBox(QComboBox* box, const QStringList& examples, const QString& placeholder) {
    box->setEditable(true);
    box->setInsertPolicy(QComboBox::NoInsert);
    box->addItems(examples);
    for (int i = 0; i < box->count(); ++i) {
        const QString id = examples[i].section(':', 0, 0);
        if (presetDisplayName(id) != id) box->setItemData(i, presetDisplayName(id), Qt::ToolTipRole);
    }
    box->setCurrentIndex(-1);
    box->lineEdit()->setPlaceholderText(placeholder);
    box->lineEdit()->installEventFilter(new SelectAllOnFocus(box));
}

}  // namespace fs::widgets
