#pragma once
// The studio's menu bar: File, Edit, View, Tools and Help, each entry a public slot of the window or of
// one of its parts.
class QAction;
class QActionGroup;
class QMenu;

namespace fs::ui {

class MainWindow;

// Fills the window's menu bar; returns File > Open recent, which the window keeps up to date.
QMenu* buildMenus(MainWindow& window, QActionGroup* displayModes, QAction* presentation);

}  // namespace fs::ui
