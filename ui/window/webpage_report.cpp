// A dry run's report as a web page (webpage.h, dryRunPage): the page's own style and script,
// its tables sortable by their headers, its charts drawn here as SVG bars (no chart library:
// the page needs no network, and a bar is a rect).
#include "window/webpage.h"

#include "arithmetic/decimal.h"
#include "arithmetic/nanos.h"
#include "traffic/traffic_log.h"

#include <QFileInfo>
#include <QObject>

#include <algorithm>
#include <optional>

namespace ratelab::ui {

namespace {

constexpr Nanos kHour = 3600 * kNanosPerSecond;
// A chart has a bar an hour up to a month of log; a longer log has a bar a day.
constexpr std::int64_t kMostHourBars = 31 * 24;

QString count(std::int64_t n) { return QString::fromStdString(grouping(n)); }
QString hourText(std::int64_t hour) { return QString::fromStdString(formatEpoch(hour * kHour)); }

// Cell is a table cell: its text, and the number it sorts by (none: it sorts by its text).
struct Cell {
    QString text;
    std::optional<double> value = std::nullopt;
};

Cell number(std::int64_t n) { return {count(n), double(n)}; }

// Table is a sortable table: its caption, its columns and rows; `sorted` is the column the rows
// come sorted by (descending), -1 none.
struct Table {
    QString caption;
    QStringList heads;
    std::vector<std::vector<Cell>> rows = {};
    int sorted = -1;
};

// tableHtml writes a table whose column headers are buttons: the page's script sorts the rows by
// a column when its button is pressed, saying so in the header's aria-sort.
QString tableHtml(const Table& t)
{
    QString out = "<table class=\"sortable\"><caption>" + htmlText(t.caption) + "</caption><thead><tr>";
    for (int c = 0; c < t.heads.size(); ++c)
        out += QString("<th scope=\"col\" aria-sort=\"%1\"><button type=\"button\">%2</button></th>")
                   .arg(c == t.sorted ? "descending" : "none", htmlText(t.heads[c]));
    out += "</tr></thead><tbody>";
    for (const std::vector<Cell>& row : t.rows) {
        out += "<tr>";
        for (std::size_t c = 0; c < row.size(); ++c) {
            const QString tag = c == 0 ? "th" : "td";
            const QString value = row[c].value ? QString(" data-v=\"%1\"").arg(*row[c].value, 0, 'g', 17) : QString();
            out += "<" + tag + (c == 0 ? " scope=\"row\"" : "") + value + ">" + htmlText(row[c].text) + "</" + tag + ">";
        }
        out += "</tr>";
    }
    return out + "</tbody></table>\n";
}

// hourChart is a rule's denials over the log's hours (a day's bars past a month), one bar each,
// named for a screen reader by the caption `labelId` and, bar by bar, under the pointer. A short
// log's bars are narrower than the whole chart's width, but the chart keeps room for its two
// time labels.
QString hourChart(const std::vector<std::int64_t>& perHour, std::int64_t firstHour, std::int64_t hours, const QString& labelId)
{
    const std::int64_t step = hours > kMostHourBars ? 24 : 1;
    const std::int64_t bars = (hours + step - 1) / step;
    std::vector<std::int64_t> sums(std::size_t(bars), 0);
    for (std::size_t h = 0; h < perHour.size(); ++h)
        sums[h / std::size_t(step)] += perHour[h];
    const std::int64_t most = std::max<std::int64_t>(1, *std::max_element(sums.begin(), sums.end()));
    const double left = 56, top = 8, height = 120, bar = std::max(std::min(28.0, 664.0 / double(bars)), 340.0 / double(bars)), width = bar * double(bars);
    QString out = QString("<svg role=\"img\" viewBox=\"0 0 728 156\" aria-labelledby=\"%1\" fill=\"currentColor\" font-size=\"12\">")
                      .arg(labelId);
    out += QString("<text x=\"%1\" y=\"%2\" text-anchor=\"end\">%3</text>").arg(left - 6).arg(top + 10).arg(count(most));
    out += QString("<text x=\"%1\" y=\"%2\" text-anchor=\"end\">0</text>").arg(left - 6).arg(top + height);
    out += QString("<path d=\"M%1 %2H%3\" stroke=\"currentColor\"/>").arg(left).arg(top + height + 0.5).arg(left + width);
    for (std::int64_t b = 0; b < bars; ++b) {
        const std::int64_t n = sums[std::size_t(b)];
        if (n == 0)
            continue;
        const double h = std::max(1.0, height * double(n) / double(most));
        out += QString("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\"><title>%5: %6</title></rect>")
                   .arg(left + bar * double(b), 0, 'f', 1)
                   .arg(top + height - h, 0, 'f', 1)
                   .arg(std::max(1.0, bar - (bar > 4 ? 1 : 0)), 0, 'f', 1)
                   .arg(h, 0, 'f', 1)
                   .arg(hourText(firstHour + b * step), QObject::tr("%1 denied").arg(count(n)));
    }
    out += QString("<text x=\"%1\" y=\"150\">%2</text>").arg(left).arg(hourText(firstHour));
    if (bars > 1) // one bar: its hour is named once
        out += QString("<text x=\"%1\" y=\"150\" text-anchor=\"end\">%2</text>").arg(left + width).arg(hourText(firstHour + hours - 1));
    return out + "</svg>";
}

QString listHtml(const std::vector<std::string>& items, const QString& prefix)
{
    QString out;
    for (const std::string& item : items)
        out += "<li>" + htmlText(prefix) + htmlText(item) + "</li>";
    return out;
}

Table rulesTable(const DryRunSide& side)
{
    Table t{QObject::tr("What each rule denied"),
            {QObject::tr("Rule"), QObject::tr("Replayed"), QObject::tr("Requests"), QObject::tr("Denied"),
             QObject::tr("Keys denied"), QObject::tr("Worst hour"), QObject::tr("Denied in the worst hour")}};
    for (std::size_t r = 0; r < side.config.rules.size(); ++r) {
        const DryRunRuleReport& rep = side.result.rules[r];
        const bool replayed = side.config.mapped[r];
        t.rows.push_back({{QString::fromStdString(side.config.rules[r].name)},
                          {replayed ? QObject::tr("yes") : QObject::tr("no")},
                          number(rep.requests),
                          number(rep.denied),
                          number(rep.keysDenied),
                          rep.worstHour < 0 ? Cell{QString(), -1.0} : Cell{hourText(rep.worstHour), double(rep.worstHour)},
                          number(rep.worstHourDenied)});
    }
    return t;
}

// ruleDetails are each denying rule's chart over the log's hours and its top keys.
QString ruleDetails(const DryRunReport& report, const DryRunSide& side, const QString& id)
{
    const Traffic& traffic = *report.traffic;
    const std::int64_t firstHour = traffic.startEpochNanos / kHour;
    const Nanos last = traffic.times.empty() ? 0 : traffic.times.back();
    const std::int64_t hours = (traffic.startEpochNanos + last) / kHour - firstHour + 1;
    QString out;
    for (std::size_t r = 0; r < side.config.rules.size(); ++r) {
        const DryRunRuleReport& rep = side.result.rules[r];
        if (rep.denied == 0)
            continue;
        const QString name = QString::fromStdString(side.config.rules[r].name);
        out += "<h4>" + htmlText(name) + "</h4>";
        const QString what = hours > kMostHourBars ? QObject::tr("Denials per day") : QObject::tr("Denials per hour");
        const QString label = QObject::tr("%1 of %2: %3 denied, most in %4 (%5)")
                                  .arg(what, name, count(rep.denied), hourText(rep.worstHour), count(rep.worstHourDenied));
        const QString labelId = id + "-" + QString::number(r);
        out += "<figure>" + hourChart(rep.deniedPerHour, firstHour, hours, labelId) + "<figcaption id=\"" + labelId + "\">"
             + htmlText(label) + "</figcaption></figure>\n";
        Table keys{QObject::tr("The keys %1 denied most").arg(name),
                   {QObject::tr("Key"), QObject::tr("Denied"), QObject::tr("First denial, seconds from the first request")},
                   {},
                   1};
        for (std::uint32_t k : topDeniedKeys(rep, report.top))
            keys.rows.push_back({{QString::fromStdString(traffic.keyNames[k])},
                                 number(rep.deniedPerKey[k]),
                                 {QString::fromStdString(formatSeconds(rep.firstDenialPerKey[k])), double(rep.firstDenialPerKey[k])}});
        out += tableHtml(keys);
    }
    return out;
}

QString sideHtml(const DryRunReport& report, const DryRunSide& side, const QString& which, const QString& id)
{
    QString out = "<section><h2>" + htmlText(which) + ": " + htmlText(QFileInfo(QString::fromStdString(side.file)).fileName()) + " ("
                + htmlText(side.config.product) + ")</h2>\n";
    if (!side.config.assumed.empty())
        out += "<p>" + htmlText(QObject::tr("Read as:")) + "</p><ul>" + listHtml(side.config.assumed, {}) + "</ul>\n";
    out += "<h3>" + htmlText(QObject::tr("Rules")) + "</h3>" + tableHtml(rulesTable(side));
    out += "<h3>" + htmlText(QObject::tr("Each rule over the log, and its top keys")) + "</h3>\n";
    const QString details = ruleDetails(report, side, id);
    return out + (details.isEmpty() ? "<p>" + htmlText(QObject::tr("No rule denied a request.")) + "</p>" : details) + "</section>\n";
}

std::vector<Cell> diffRow(const DryRunDiffRow& row, const QString& first)
{
    std::vector<Cell> cells;
    if (!first.isEmpty())
        cells.push_back({first});
    cells.push_back({QString::fromStdString(row.what)});
    cells.push_back(number(row.onlyCurrent));
    cells.push_back(number(row.onlyProposed));
    return cells;
}

QString diffHtml(const DryRunReport& report)
{
    const DryRunDiff& d = *report.diff;
    const Traffic& traffic = *report.traffic;
    QString out = "<section><h2>" + htmlText(QObject::tr("Current against proposed")) + "</h2><p>"
                + htmlText(diffSummary(traffic, d)) + "</p>\n";
    const QString only = QObject::tr("Denied only by the current"), onlyProposed = QObject::tr("Denied only by the proposed");
    Table counts{QObject::tr("Every request, by the configs that deny it"), {QObject::tr("Requests"), QObject::tr("Count"), QObject::tr("Keys")}};
    for (const auto& [name, c] : {std::pair(QObject::tr("Admitted by both"), d.admittedByBoth), std::pair(QObject::tr("Denied by both"), d.deniedByBoth),
                                  std::pair(only, d.onlyCurrent), std::pair(onlyProposed, d.onlyProposed)})
        counts.rows.push_back({{name}, number(c.requests), number(c.keys)});
    out += tableHtml(counts);
    Table rules{QObject::tr("The requests one config denies and the other admits, by the rule that denies them"),
                {QObject::tr("Config"), QObject::tr("Rule"), only, onlyProposed}};
    for (const DryRunDiffRow& row : d.byCurrentRule)
        rules.rows.push_back(diffRow(row, QObject::tr("current")));
    for (const DryRunDiffRow& row : d.byProposedRule)
        rules.rows.push_back(diffRow(row, QObject::tr("proposed")));
    out += tableHtml(rules);
    Table hours{QObject::tr("The same requests by hour"), {QObject::tr("Hour"), only, onlyProposed}};
    for (const DryRunDiffRow& row : d.byHour)
        hours.rows.push_back(diffRow(row, {}));
    out += tableHtml(hours);
    Table keys{QObject::tr("The keys most changed"), {QObject::tr("Key"), only, onlyProposed}};
    for (std::size_t i = 0; i < std::min(report.top, d.keys.size()); ++i)
        keys.rows.push_back({{QString::fromStdString(traffic.keyNames[d.keys[i].key])}, number(d.keys[i].onlyCurrent),
                             number(d.keys[i].onlyProposed)});
    return out + tableHtml(keys) + "</section>\n";
}

// notReplayedHtml names every rule or part not replayed, before any count (empty: complete).
QString notReplayedHtml(const DryRunReport& report)
{
    if (reportComplete(report))
        return {};
    QString items;
    for (const DryRunSide* side : {&report.current, report.proposed ? &*report.proposed : nullptr}) {
        if (!side)
            continue;
        const QString prefix = !report.proposed ? QString() : side == &report.current ? QObject::tr("Current: ") : QObject::tr("Proposed: ");
        items += listHtml(side->config.notReplayed, prefix);
        for (std::size_t r = 0; r < side->config.rules.size(); ++r)
            if (!side->config.mapped[r] && side->config.notReplayed.empty())
                items += "<li>" + htmlText(prefix) + htmlText(QObject::tr("%1: not replayed").arg(QString::fromStdString(side->config.rules[r].name))) + "</li>";
    }
    return "<section id=\"not-replayed\" class=\"notice\"><h2>" + htmlText(QObject::tr("Not complete: not replayed"))
         + "</h2><ul>" + items + "</ul></section>\n";
}

} // namespace

QByteArray dryRunPage(const DryRunReport& report)
{
    const QString log = QFileInfo(QString::fromStdString(report.log)).fileName();
    QString title = QObject::tr("Dry run of %1 on %2").arg(QFileInfo(QString::fromStdString(report.current.file)).fileName(), log);
    if (report.proposed)
        title = QObject::tr("Dry run of %1 against %2 on %3")
                    .arg(QFileInfo(QString::fromStdString(report.current.file)).fileName(),
                         QFileInfo(QString::fromStdString(report.proposed->file)).fileName(), log);
    QString body = "<main><h1>" + htmlText(title) + "</h1>\n" + notReplayedHtml(report);
    body += "<p class=\"headline\"><strong>" + htmlText(reportHeadline(report)) + "</strong></p>\n";
    if (!report.warnings.empty())
        body += "<p>" + htmlText(QObject::tr("Reading the log:")) + "</p><ul>" + listHtml(report.warnings, {}) + "</ul>\n";
    const bool two = report.proposed.has_value();
    body += sideHtml(report, report.current, two ? QObject::tr("Current") : QObject::tr("The config"), "current");
    if (two)
        body += sideHtml(report, *report.proposed, QObject::tr("Proposed"), "proposed") + diffHtml(report);
    return pageDocument(title, body + "</main>\n");
}

} // namespace ratelab::ui
