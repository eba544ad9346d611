// Settings is the one place RateLab keeps what persists across runs (over QSettings): the
// window's geometry and splitters, and the last scenario.
#pragma once

#include "scenario/scenario.h"

#include <QByteArray>
#include <QSettings>
#include <QSize>
#include <QStringList>

#include <optional>

namespace ratelab::ui {

class Settings {
public:
    Settings();

    QByteArray geometry() const;
    void setGeometry(const QByteArray& g);
    // savedScreen is the available size of the screen the geometry was saved on (empty: unknown).
    QSize savedScreen() const;
    void setSavedScreen(QSize size);
    QByteArray splitterState(const QString& name) const;
    void setSplitterState(const QString& name, const QByteArray& state);

    // LastDocument is the document of the last run: its exact scenario (kept as scenario-file
    // JSON, the same format and number grammar as a file), where it came from and whether it had
    // unsaved changes, so closing the window never loses work.
    struct LastDocument {
        Scenario scenario;
        QString filePath;
        QString presetId;
        bool modified = false;
    };
    // lastDocument is the last run's document, if one was kept and still reads as a valid scenario.
    std::optional<LastDocument> lastDocument() const;
    void setLastDocument(const LastDocument& d);

    // export size and scale remembered between exports
    QSize exportSize() const;
    double exportScale() const;
    void setExport(QSize size, double scale);

    // recentFiles lists scenario files, most recent first; addRecentFile moves one to the top.
    QStringList recentFiles() const;
    void addRecentFile(const QString& path);

    QString theme() const;
    void setTheme(const QString& id);

private:
    mutable QSettings m_settings;
};

} // namespace ratelab::ui
