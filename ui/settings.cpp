#include "settings.h"

#include "decimal.h"

#include <QScopeGuard>
#include <QStringList>

namespace ratelab::ui {

Settings::Settings()
    : m_settings("RateLab", "ratelab")
{
}

QByteArray Settings::geometry() const { return m_settings.value("window/geometry").toByteArray(); }
void Settings::setGeometry(const QByteArray& g) { m_settings.setValue("window/geometry", g); }

QByteArray Settings::splitterState(const QString& name) const
{
    return m_settings.value("window/splitter/" + name).toByteArray();
}

void Settings::setSplitterState(const QString& name, const QByteArray& state)
{
    m_settings.setValue("window/splitter/" + name, state);
}

std::optional<Scenario> Settings::lastScenario() const
{
    m_settings.beginGroup("scenario");
    const auto end = qScopeGuard([this] { m_settings.endGroup(); });
    if (!m_settings.contains("limit"))
        return std::nullopt;
    // Values are stored as exact text and parsed back with the core's parsers; anything that no
    // longer parses (a hand-edited file) falls back to the defaults.
    const auto text = [this](const char* key) { return m_settings.value(key).toString().toStdString(); };
    try {
        Scenario s;
        s.config = LimiterConfig::make(parseInteger(text("limit")), parseSeconds(text("window")),
                                       parseInteger(text("capacity")),
                                       Rate::reduced(parseInteger(text("rate_tokens")), parseInteger(text("rate_per_ns"))));
        s.algorithms.clear();
        for (const QString& id : m_settings.value("algorithms").toStringList())
            if (const auto a = algorithmFromId(id.toStdString()))
                s.algorithms.push_back(*a);
        Pattern& p = s.pattern;
        p.kind = patternFromId(text("pattern")).value_or(PatternKind::Uniform);
        p.count = parseInteger(text("n"));
        p.delayNanos = parseSeconds(text("delay"));
        p.startNanos = parseSeconds(text("start"));
        p.burstSize = parseInteger(text("size"));
        p.periodNanos = parseSeconds(text("period"));
        p.lambda = Rate::reduced(parseInteger(text("lambda_tokens")), parseInteger(text("lambda_per_ns")));
        p.seed = std::uint64_t(parseInteger(text("seed")));
        p.gapNanos = parseSeconds(text("gap"));
        checkPattern(s.pattern, s.config); // refuse what would not simulate, without generating it
        return s;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void Settings::setLastScenario(const Scenario& s)
{
    m_settings.beginGroup("scenario");
    const LimiterConfig& c = s.config;
    const auto str = [](auto v) { return QString::fromStdString(v); };
    m_settings.setValue("limit", QString::number(c.limit()));
    m_settings.setValue("window", str(formatSeconds(c.windowNanos())));
    m_settings.setValue("capacity", QString::number(c.capacity()));
    m_settings.setValue("rate_tokens", QString::number(c.rate().tokens));
    m_settings.setValue("rate_per_ns", QString::number(c.rate().perNanos));
    QStringList ids;
    for (Algorithm a : s.algorithms)
        ids << QString::fromUtf8(algorithmId(a).data());
    m_settings.setValue("algorithms", ids);
    const Pattern& p = s.pattern;
    m_settings.setValue("pattern", QString::fromUtf8(patternId(p.kind).data()));
    m_settings.setValue("n", QString::number(p.count));
    m_settings.setValue("delay", str(formatSeconds(p.delayNanos)));
    m_settings.setValue("start", str(formatSeconds(p.startNanos)));
    m_settings.setValue("size", QString::number(p.burstSize));
    m_settings.setValue("period", str(formatSeconds(p.periodNanos)));
    m_settings.setValue("lambda_tokens", QString::number(p.lambda.tokens));
    m_settings.setValue("lambda_per_ns", QString::number(p.lambda.perNanos));
    m_settings.setValue("seed", QString::number(p.seed));
    m_settings.setValue("gap", str(formatSeconds(p.gapNanos)));
    m_settings.endGroup();
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
