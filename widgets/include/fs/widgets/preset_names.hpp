#pragma once
#include <QString>
#include <QStringList>

class QComboBox;

namespace fs::widgets {

// What a preset is called on screen ("Laplacian of Gaussian" for "log"); the id itself stays the hint and
// what files and the command line use. An id without a friendly name is shown as it is.
QString presetDisplayName(const QString& presetId);

// An editable box for preset texts ("gaussian:7:2"): it starts empty with `placeholder`, offers `examples`,
// never adds what is typed to its list, and selects its text when focused so typing replaces it.
void setUpPresetTextBox(QComboBox* box, const QStringList& examples, const QString& placeholder);

}  // namespace fs::widgets
