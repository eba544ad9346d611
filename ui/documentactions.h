// DocumentActions are the File menu's actions: open, save, recent files, presets, and every
// export (PNG, SVG, CSV, JSON, clipboard). Each file is written atomically; a failure is shown
// and leaves both the old file and the current work as they were.
#pragma once

#include "scenario.h"

#include <QObject>

#include <functional>

class QAction;
class QMenu;
class QWidget;

namespace ratelab::ui {

class Dashboard;
class Settings;

class DocumentActions : public QObject {
    Q_OBJECT
public:
    // current returns the scenario on screen; open shows another one.
    DocumentActions(QWidget* window, Settings& settings, Dashboard* dashboard, std::function<Scenario()> current,
                    std::function<void(const Scenario&)> open);

    // fillMenu adds the actions to the File menu.
    void fillMenu(QMenu* file);
    QAction* exportImageAction() const { return m_exportImage; }
    QAction* copyImageAction() const { return m_copyImage; }
    QString currentPath() const { return m_path; }

    // openFile loads a scenario file; it reports whether it did (false: a message was shown).
    bool openFile(const QString& path);
    // saveTo writes the current scenario to path; it reports whether it did.
    bool saveTo(const QString& path);

signals:
    void status(const QString& message);

private:
    void save();
    void saveAs();
    void exportImage();
    void exportSvg();
    void exportTrace(const QString& format);
    void copyImage();
    void refreshRecent();
    void failed(const QString& title, const QString& message);
    QString askPath(const QString& title, const QString& filter, const QString& suffix);

    QWidget* m_window;
    Settings& m_settings;
    Dashboard* m_dashboard;
    std::function<Scenario()> m_current;
    std::function<void(const Scenario&)> m_open;
    QString m_path;
    QMenu* m_recent = nullptr;
    QAction* m_exportImage = nullptr;
    QAction* m_copyImage = nullptr;
};

} // namespace ratelab::ui
