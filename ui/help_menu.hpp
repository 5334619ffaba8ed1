#pragma once
// Help: the lessons of docs/teaching.md as guided steps, the README's "Use" section, the keyboard
// shortcuts (read from the window's own actions, so the list never drifts) and About.
class QMenu;

namespace fs::ui {

class MainWindow;
class LessonPlayer;

void fillHelpMenu(MainWindow& window, QMenu* help);
// The player Help > Lessons opens (made on first use).
LessonPlayer* lessonPlayer(MainWindow& window);

}  // namespace fs::ui
