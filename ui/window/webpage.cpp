#include "window/webpage.h"

#include "window/handout.h"
#include "window/webpage_assets.h"

#include "chart/chartstack.h"
#include "chart/rowchart.h"
#include "chart/summarytable.h"
#include "chart/theme.h"
#include "chart/timeaxis.h"
#include "panels/explainpanel.h"

#include "arithmetic/decimal.h"
#include "outputpath.h"
#include "scenario/rows.h"

#include <QApplication>
#include <QBuffer>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// replaced is text with each match of `re` replaced by what `with` makes of it.
template <typename With>
QString replaced(const QString& text, const QRegularExpression& re, With with)
{
    QString out;
    out.reserve(text.size());
    qsizetype from = 0;
    for (auto it = re.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(from, m.capturedStart() - from) + with(m);
        from = m.capturedEnd();
    }
    return out + text.mid(from);
}

// compactSvg is QSvgGenerator's output made smaller without a visible change, for a page of a
// thousand bars a row: it opens a group at every change of pen or brush (many left empty, one a
// bar), each naming the font even with no text in it, and the defaults; its coordinates have four
// decimals, where a tenth of a pixel is more than the eye sees. Groups without text lose the font, empty ones
// go, and a group that opens as the one just closed goes on as it.
QString compactSvg(const QString& svg)
{
    static const QRegularExpression inner(R"((<g [^>]*>)((?:(?!<g |</g>).)*)</g>)", QRegularExpression::DotMatchesEverythingOption);
    static const QRegularExpression font(R"(\s*font-family="[^"]*" font-size="[^"]*" font-weight="[^"]*" font-style="[^"]*"\s*)");
    // What the groups say that SVG's defaults say already (opaque), or that no stroke reads.
    static const QRegularExpression opaque(R"re( (fill|stroke)-opacity="1")re");
    static const QRegularExpression strokeStyle(R"re( stroke-(width|linecap|linejoin)="[^"]*")re");
    static const QRegularExpression identity(R"re( transform="matrix\(1,0,0,1,0,0\)")re");
    QString text = replaced(svg, inner, [](const QRegularExpressionMatch& m) {
        if (m.captured(2).trimmed().isEmpty())
            return QString();
        QString open = m.captured(1).remove(identity).remove(opaque);
        if (open.contains(R"(stroke="none")"))
            open.remove(strokeStyle);
        if (!m.captured(2).contains("<text"))
            open.remove(font);
        return open + m.captured(2) + "</g>";
    });
    static const QRegularExpression points(R"re(\b(points|d|x|y|width|height)="([^"]*)")re");
    static const QRegularExpression digits(R"((\.\d)\d+)");
    text = replaced(text, points, [](const QRegularExpressionMatch& m) {
        return m.captured(1) + "=\"" + QString(m.captured(2)).replace(digits, "\\1") + "\"";
    });
    static const QRegularExpression group(R"(</g>\s*(<g [^>]*>))");
    return replaced(text, group, [&text](const QRegularExpressionMatch& m) {
        const qsizetype start = text.lastIndexOf("<g ", m.capturedStart()); // the group just closed
        return text.mid(start, text.indexOf('>', start) - start + 1) == m.captured(1) ? QString() : m.captured(0);
    });
}

// svgOf draws a widget as File > Export SVG draws the window, without the XML prolog (the SVG
// goes inline in the page). Its ids (QSvgGenerator numbers its clip paths from 1 in each file)
// get `prefix`, so two rows' clips never meet in one page.
QString svgOf(QWidget* widget, const QString& label, const QString& prefix)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(label);
    // Fonts are sized in points: at the widget's own resolution they keep the size they were laid out at.
    svg.setResolution(widget->logicalDpiY());
    QPainter painter(&svg);
    // Without the window's background: the page's own (the theme's base) is behind every picture.
    widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    QString text = QString::fromUtf8(bytes);
    text = text.mid(std::max<qsizetype>(0, text.indexOf("<svg")));
    text = compactSvg(text);
    static const QRegularExpression id(R"((id="|url\(#))([A-Za-z_][\w-]*))");
    text.replace(id, "\\1" + prefix + "\\2");
    // The picture is named to a screen reader once, on the element that holds it.
    return text.replace("<svg", "<svg role=\"img\" aria-label=\"" + htmlText(label) + "\"");
}

// markText is what hovering or focusing a mark shows: the request, as What happened heads it,
// and the row's line there, with the rounded durations' exact values and the HTTP response.
QString markText(const Trace& trace, std::size_t row, std::size_t request)
{
    QString name = requestName(trace, request);
    name[0] = name[0].toUpper();
    QStringList exact;
    const WhatHappened words = whatHappened(trace, row, request, &exact);
    QString text = name + "\n" + words.line;
    if (!exact.isEmpty())
        text += "\n" + roundedNote(exact);
    if (!words.http.isEmpty())
        text += "\n\n" + words.http;
    return text;
}

double tenth(double v) { return std::round(v * 10) / 10; }

// exactMarks are a row's marks as drawn, one per decision shown: [x, y, text].
QJsonArray exactMarks(const RowChart& chart, const Frame& frame, std::size_t row)
{
    QJsonArray marks;
    const ReducedRow& r = frame.rows.at(row);
    for (std::size_t i = r.firstRequest; i < chart.shownEnd(); ++i) {
        const QPointF at = chart.markPosition(i);
        marks.append(QJsonArray{tenth(at.x()), tenth(at.y()), markText(*frame.trace, row, requestOf(*frame.trace, row, i))});
    }
    return marks;
}

// columnMarks stand for a row drawn as bars, one per pixel column with requests: its counts and
// the first decision's words, at the column's centre.
QJsonArray columnMarks(const RowChart& chart, const Frame& frame, std::size_t row)
{
    QJsonArray marks;
    const ReducedRow& r = frame.rows.at(row);
    const std::vector<Nanos>& times = timesOf(*frame.trace, row);
    const int n = int(r.columns.size());
    const QRectF plot = chart.plotRect();
    const double y = chart.laneCentre(RowChart::Lane::Delayed);
    std::size_t i = r.firstRequest;
    for (int k = 0; k < n; ++k) {
        const Nanos from = columnStart(r.fromNanos, r.toNanos, n, k), to = columnStart(r.fromNanos, r.toNanos, n, k + 1);
        while (i < r.endRequest && times[i] < from)
            ++i;
        const Column& c = r.columns[std::size_t(k)];
        if (i >= r.endRequest || times[i] >= to || c.admitted + c.delayed + c.denied == 0)
            continue;
        const QString counts = QObject::tr("%1 s to %2 s: %3 admitted at once, %4 delayed, %5 denied; the first:")
                                   .arg(QString::fromStdString(formatSeconds(from)), QString::fromStdString(formatSeconds(to)))
                                   .arg(c.admitted)
                                   .arg(c.delayed)
                                   .arg(c.denied);
        const double x = plot.left() + (k + 0.5) * plot.width() / n;
        marks.append(QJsonArray{tenth(x), tenth(y), counts + "\n" + markText(*frame.trace, row, requestOf(*frame.trace, row, i))});
    }
    return marks;
}

// packed writes a row's marks for the page: compressed (a thousand columns' words shrink to a
// sixth: a 100,000-request page of seven rows would be over 5 MB without), then base64, which
// never closes its <script> early. The page inflates them as it loads.
QString packed(const QJsonArray& data)
{
    return QString::fromLatin1(qCompress(QJsonDocument(data).toJson(QJsonDocument::Compact), 9).toBase64());
}

// rowHtml is a row's section: its heading (at `level`, for a screen reader), its picture and its marks.
QString rowHtml(RowChart* chart, const Frame& frame, std::size_t row, const QString& id, int level)
{
    const auto [title, counts] = chart->headerTexts();
    const QString label = withoutJoiners(counts.isEmpty() ? title : title + ": " + counts);
    QJsonArray marks;
    if (!chart->veiled()) // hidden decisions are not explained either, as on the hover
        marks = chart->exactMarks() ? exactMarks(*chart, frame, row) : columnMarks(*chart, frame, row);
    const QString reach = chart->exactMarks() ? QString::number(RowChart::kHoverReach)
                                              : QString::number(std::max(RowChart::kHoverReach, chart->plotRect().width() / std::max(1, chart->plotColumns())));
    const QString h = "h" + QString::number(level);
    QString out = "<section class=\"row\" aria-labelledby=\"" + id + "\"><" + h + " class=\"sr\" id=\"" + id + "\">"
                + htmlText(withoutJoiners(title)) + "</" + h + ">";
    if (marks.isEmpty())
        return out + "<div class=\"plot\">" + svgOf(chart, label, id + "-") + "</div></section>\n";
    out += QString("<div class=\"plot\" tabindex=\"0\" role=\"group\" data-reach=\"%1\" aria-label=\"%2\">")
               .arg(reach, htmlText(QObject::tr("%1: %2 marks; the arrow keys move between them").arg(label).arg(marks.size())));
    out += svgOf(chart, label, id + "-") + "</div>";
    return out + "<script type=\"application/octet-stream\" class=\"marks\">" + packed(marks) + "</script></section>\n";
}

// tableHtml is the summary table as the dashboard shows it: its columns in their order, blank
// figures while veiled.
QString tableHtml(const SummaryTable& table)
{
    const QHeaderView* header = table.horizontalHeader();
    QString out = "<table><caption class=\"sr\">" + htmlText(QObject::tr("Summary")) + "</caption><thead><tr>";
    std::vector<int> shown;
    for (int v = 0; v < header->count(); ++v)
        if (const int c = header->logicalIndex(v); !table.isColumnHidden(c))
            shown.push_back(c);
    for (int c : shown)
        out += "<th scope=\"col\">" + htmlText(table.horizontalHeaderItem(c)->text()) + "</th>";
    out += "</tr></thead><tbody>";
    for (int r = 0; r < table.rowCount(); ++r) {
        out += "<tr>";
        for (std::size_t k = 0; k < shown.size(); ++k) {
            const QTableWidgetItem* item = table.item(r, shown[k]);
            const QString cell = htmlText(withoutJoiners(item ? item->text() : QString()));
            out += k == 0 ? "<th scope=\"row\">" + cell + "</th>" : "<td>" + cell + "</td>";
        }
        out += "</tr>";
    }
    return out + "</tbody></table>\n";
}

// dashboardHtml is a laid-out dashboard: its legend, a section per row (headed at `level`), the
// time axis and the summary; `id` makes its element ids unique in the page.
QString dashboardHtml(Dashboard& dashboard, const QString& id, int level)
{
    const Frame& frame = dashboard.frame();
    QString out = "<div class=\"dashboard\"><p class=\"title\">" + htmlText(withoutJoiners(dashboard.titleText())) + "</p>";
    out += "<div class=\"legend\">" + svgOf(dashboard.legend(), dashboard.legendTexts().join(", "), id + "-legend-") + "</div>\n";
    ChartStack* charts = dashboard.charts();
    for (int r = 0; r < charts->rowCount() && r < int(frame.rows.size()); ++r)
        out += rowHtml(charts->row(r), frame, std::size_t(r), id + "-r" + QString::number(r), level);
    out += "<div class=\"axis\">" + svgOf(charts->axis(), QObject::tr("time, seconds"), id + "-axis-") + "</div>\n";
    return out + tableHtml(*dashboard.summary()) + "</div>\n";
}

QString colour(QPalette::ColorRole role) { return QApplication::palette().color(role).name(); }

} // namespace

QByteArray pageDocument(const QString& title, const QString& body)
{
    const bool dark = isDark(QApplication::palette());
    QString style = QString::fromUtf8(kPageStyle);
    style.replace("@BASE@", colour(QPalette::Base)).replace("@TEXT@", colour(QPalette::Text));
    style.replace("@FOCUS@", colour(QPalette::Highlight)).replace("@SCHEME@", dark ? "dark" : "light");
    const QString out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                        "<meta name=\"color-scheme\" content=\""
                        + QString(dark ? "dark" : "light") + "\"><meta name=\"generator\" content=\"RateLab\"><title>"
                        + htmlText(withoutJoiners(title)) + "</title><style>" + style
                        + "</style></head>\n<body aria-busy=\"true\">\n" + body
                        + "<div id=\"tip\" role=\"tooltip\" hidden></div><div id=\"ring\" hidden></div>"
                          "<div id=\"live\" class=\"sr\" aria-live=\"polite\"></div>\n<script>"
                        + QString::fromUtf8(kPageScript) + "</script>\n</body></html>\n";
    return out.toUtf8();
}

namespace {

Dashboard* laidOut(Dashboard& dashboard, const Scenario& scenario, QSize size, TimeRange range, bool veiled)
{
    dashboard.stage()->setVeiled(veiled);
    layoutForExport(dashboard, scenario, size, range);
    return &dashboard;
}

} // namespace

QByteArray scenarioPage(const Scenario& scenario, QSize size, TimeRange range)
{
    Dashboard dashboard;
    laidOut(dashboard, scenario, size, range, false);
    const QString title = Dashboard::describe(scenario);
    QString body = "<main><h1>" + htmlText(withoutJoiners(QString::fromStdString(scenario.title.empty() ? "RateLab" : scenario.title)))
                 + "</h1>\n<p class=\"hint\">"
                 + htmlText(QObject::tr("Point at a mark, or Tab to a row and move with the arrow keys, to read what happened "
                                   "to that request."))
                 + "</p>\n";
    body += dashboardHtml(dashboard, "d", 2) + "</main>\n";
    return pageDocument(title, body);
}

namespace {

// seal keeps a step's decisions out of the page's text: compressed (a step's SVG and words shrink
// to a fifth), XORed with the page's key, then base64.
QString seal(const QJsonObject& data, const QByteArray& key)
{
    QByteArray bytes = qCompress(QJsonDocument(data).toJson(QJsonDocument::Compact), 9);
    for (qsizetype i = 0; i < bytes.size(); ++i)
        bytes[i] = char(bytes[i] ^ key[i % key.size()]);
    return QString::fromLatin1(bytes.toBase64());
}

QString stepHtml(const io::Deck& deck, std::size_t i, QSize size, bool answers, const QByteArray& key)
{
    const io::DeckStep& step = deck.steps[i];
    const StepWords words = stepWords(deck, i);
    const QString id = "s" + QString::number(i + 1);
    const TimeRange range = step.hasFocus() ? TimeRange{*step.from, *step.to} : TimeRange{};
    const bool hidden = decisionsHidden(deck, i); // from the first question on
    const bool asks = !step.question.empty();
    QString out = QString("<section class=\"step\" id=\"%1\" data-asks=\"%2\" aria-labelledby=\"%1-h\">").arg(id, asks ? "yes" : "no");
    out += "<p class=\"where\">" + words.where + "</p><h2 id=\"" + id + "-h\">" + words.title + "</h2>";
    if (!words.lesson.isEmpty())
        out += "<p>" + words.lesson + "</p>";
    if (asks)
        out += QObject::tr("<p class=\"question\"><b>Question:</b> %1</p>").arg(words.question);
    out += "<div class=\"answer\" aria-live=\"polite\"></div>";
    if (hidden && (asks || !answers)) { // the room sees the traffic, not what was decided
        Dashboard veiled;
        out += "<div class=\"veiled\">" + dashboardHtml(*laidOut(veiled, step.scenario, size, range, true), id + "v", 3) + "</div>";
    }
    Dashboard shown;
    if (!hidden) // before any question: nothing to hide
        return out + "<div class=\"revealed\">" + dashboardHtml(*laidOut(shown, step.scenario, size, range, false), id, 3) + "</div></section>\n";
    out += "<div class=\"revealed\"></div>";
    if (answers) {
        QJsonObject data{{"chart", dashboardHtml(*laidOut(shown, step.scenario, size, range, false), id, 3)}};
        if (asks && !words.answer.isEmpty())
            data["answer"] = QObject::tr("<p><b>Answer:</b> %1</p>").arg(words.answer);
        out += "<script type=\"application/octet-stream\" class=\"sealed\">" + seal(data, key) + "</script>";
    }
    return out + "</section>\n";
}

} // namespace

QByteArray deckPage(const io::Deck& deck, QSize size, bool answers)
{
    QByteArray key(16, '\0');
    for (char& b : key)
        b = char(QRandomGenerator::global()->bounded(256));
    const QString title = QString::fromStdString(deck.title);
    QString body = "<main id=\"deck\" data-key=\"" + QString::fromLatin1(key.toBase64()) + "\"><h1>" + htmlText(title) + "</h1>\n";
    body += "<nav aria-label=\"" + htmlText(QObject::tr("Steps")) + "\"><button type=\"button\" id=\"prev\">"
          + htmlText(QObject::tr("Previous (PageUp)")) + "</button> <button type=\"button\" id=\"next\">"
          + htmlText(QObject::tr("Next or reveal (PageDown)")) + "</button> <span id=\"at\" aria-live=\"polite\"></span></nav>\n";
    for (std::size_t i = 0; i < deck.steps.size(); ++i)
        body += stepHtml(deck, i, size, answers, key);
    return pageDocument(title, body + "</main>\n");
}

QString writePage(const QByteArray& bytes, const QString& path)
{
    if (const QString problem = io::outputPathProblem(path); !problem.isEmpty())
        return problem;
    return io::writeFileAtomically(path, bytes);
}

} // namespace ratelab::ui
