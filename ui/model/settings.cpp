#include "model/settings.h"

#include "arithmetic/decimal.h"
#include "scenariofile.h"

#include <QStringList>

namespace ratelab::ui {

Settings::Settings()
    : m_settings("RateLab", "ratelab")
{
}

QByteArray Settings::geometry() const { return m_settings.value("window/geometry").toByteArray(); }
void Settings::setGeometry(const QByteArray& g) { m_settings.setValue("window/geometry", g); }
QSize Settings::savedScreen() const { return m_settings.value("window/screen").toSize(); }
void Settings::setSavedScreen(QSize size) { m_settings.setValue("window/screen", size); }

QByteArray Settings::splitterState(const QString& name) const
{
    return m_settings.value("window/splitter/" + name).toByteArray();
}

void Settings::setSplitterState(const QString& name, const QByteArray& state)
{
    m_settings.setValue("window/splitter/" + name, state);
}

std::optional<Settings::LastDocument> Settings::lastDocument() const
{
    const io::LoadResult r = io::parseScenario(m_settings.value("document/scenario").toByteArray());
    if (!r.scenario)
        return std::nullopt; // none kept, or no longer valid (a hand-edited file): the defaults
    return LastDocument{*r.scenario, m_settings.value("document/file").toString(),
                        m_settings.value("document/preset").toString(), m_settings.value("document/modified").toBool()};
}

void Settings::setLastDocument(const LastDocument& d)
{
    m_settings.remove("scenario"); // the field-by-field form of earlier versions
    m_settings.setValue("document/scenario", io::serializeScenario(d.scenario));
    m_settings.setValue("document/file", d.filePath);
    m_settings.setValue("document/preset", d.presetId);
    m_settings.setValue("document/modified", d.modified);
}

QSize Settings::exportSize() const { return m_settings.value("export/size", QSize(1600, 900)).toSize(); }
double Settings::exportScale() const { return m_settings.value("export/scale", 2.0).toDouble(); }

void Settings::setExport(QSize size, double scale)
{
    m_settings.setValue("export/size", size);
    m_settings.setValue("export/scale", scale);
}

} // namespace ratelab::ui

namespace ratelab::ui {

QStringList Settings::recentFiles() const { return m_settings.value("recent/files").toStringList(); }

void Settings::addRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > 8)
        files.removeLast();
    m_settings.setValue("recent/files", files);
}

QString Settings::theme() const { return m_settings.value("view/theme", "light").toString(); }
void Settings::setTheme(const QString& id) { m_settings.setValue("view/theme", id); }

} // namespace ratelab::ui
