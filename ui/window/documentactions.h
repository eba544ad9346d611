// DocumentActions are the File menu's actions: open, save, recent files, presets, and every
// export (PNG, SVG, CSV, JSON, clipboard). Each file is written atomically; a failure is shown
// and leaves both the old file and the current work as they were.
#pragma once

#include "redis_check.h"
#include "scenario/scenario.h"
#include "replay/dry_run_report.h"

#include <QFutureWatcher>
#include <QObject>

class QAction;
class QMenu;
class QWidget;

namespace ratelab::ui {

class Dashboard;
class ScenarioDocument;
class Settings;

class DocumentActions : public QObject {
    Q_OBJECT
public:
    DocumentActions(QWidget* window, Settings& settings, Dashboard* dashboard, ScenarioDocument* document);

    // fillMenu adds the actions to the File menu.
    void fillMenu(QMenu* file);
    QAction* exportImageAction() const { return m_exportImage; }
    QAction* copyImageAction() const { return m_copyImage; }
    QAction* revertAction() const { return m_revert; }
    QAction* checkRedisAction() const { return m_checkRedis; }
    QAction* copyRedisScriptAction() const { return m_copyRedisScript; }

    // openFile loads a scenario file; it reports whether it did (false: a message was shown).
    bool openFile(const QString& path);
    // saveTo writes the document to path; it reports whether it did.
    bool saveTo(const QString& path);
    // importConfiguration reads a product's configuration file (io::importConfigurationFile)
    // into the document as one undoable edit, its explanation as the lesson; it reports whether
    // it did (false: a message was shown and the document is as it was).
    bool importConfiguration(const QString& path);
    // openPreset opens a built-in scenario; it reports whether it did.
    bool openPreset(const QString& id);
    // revert drops unsaved changes, reopening the file or preset; it reports whether it did.
    bool revert();

    // checkAgainstRedis runs the scenario through the Lua scripts on a private redis-server, off
    // the GUI thread, and shows whether every decision agreed (redisChecked, and a message box).
    void checkAgainstRedis();
    // copyRedisScript copies the server-clock script (`ratelab lua ALG --server-clock`) of the
    // scenario's layers, or of its first algorithm with its config, to the clipboard.
    void copyRedisScript();
    // exportPageTo writes File > Export as web page's page to path (what `ratelab export --html`
    // writes for the scenario at the export size and the charts' zoom); it returns an empty
    // string or why nothing was written (an old file is left as it was).
    QString exportPageTo(const QString& path);
    // exportDryRunPageTo writes a dry run's report page to path (what `ratelab replay --config
    // --html` writes), exportDryRunPage asks where first; as exportPageTo.
    static QString exportDryRunPageTo(const DryRunReport& report, const QString& path);
    void exportDryRunPage(const DryRunReport& report);

signals:
    void status(const QString& message);
    void redisChecked(bool agreed, const QString& summary);
    // imported is emitted when the configuration at path was read, just before the document
    // takes it.
    void imported(const QString& path);

private:
    // fillMenu's groups, in the menu's order: opening (a file, a recent one, an import, a
    // preset), saving (save, save as, revert), exporting and checking against Redis.
    void addOpenActions(QMenu* file);
    void addSaveActions(QMenu* file);
    void addExportActions(QMenu* file);
    void save();
    void saveAs();
    void exportImage();
    void exportSvg();
    void exportPage();
    void exportTrace(const QString& format);
    void copyImage();
    void refreshRecent();
    void failed(const QString& title, const QString& message);
    QString askPath(const QString& title, const QString& filter, const QString& suffix);

    QWidget* m_window;
    Settings& m_settings;
    Dashboard* m_dashboard;
    ScenarioDocument* m_document;
    QMenu* m_recent = nullptr;
    QAction* m_exportImage = nullptr;
    QAction* m_copyImage = nullptr;
    QAction* m_revert = nullptr;
    QAction* m_checkRedis = nullptr;
    QAction* m_copyRedisScript = nullptr;
    QFutureWatcher<io::RedisCheck> m_redisCheck;
};

// redisWarning is what File > Check against Redis asks before a long check: empty up to
// 100,000 decisions (requests x algorithms), else how many and about how long (one round trip
// of about 0.1 ms a decision, as measured on a private redis-server).
QString redisWarning(std::size_t decisions);

} // namespace ratelab::ui
