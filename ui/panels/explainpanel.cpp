#include "panels/explainpanel.h"

#include "limiters/algorithm_facts.h"
#include "engine/clients.h"
#include "report/explain.h"
#include "report/headers.h"
#include "scenario/rows.h"
#include "chart/rowchart.h"

#include <QLabel>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace ratelab::ui {

namespace {

// lineFor words request `index` in one row: a plain row replays its limiter (explain); a row of
// a cluster, of clients or a layered policy is worded from its record, every attempt of it.
std::string lineFor(const Trace& trace, std::size_t row, std::size_t index)
{
    const AlgorithmTrace& r = trace.results[row];
    if (isPlainRow(r))
        return explain(trace, row, index);
    const auto first = decisionOf(trace, row, index);
    std::string line = "t = " + explainSeconds(timesOf(trace, row).at(*first)) + " s: "
                     + (r.title.empty() ? std::string(facts(r.algorithm).title) : r.title) + ": ";
    if (!r.clients)
        return line + describeRecorded(trace, row, *first);
    const ChunkedLog<LoggedAttempt>& attempts = *r.log;
    std::string parts;
    for (std::size_t i = *first; i < attempts.size(); ++i)
        if (attempts[i].request == std::int32_t(index))
            parts += (parts.empty() ? "" : "; ") + ("at " + explainSeconds(attempts[i].t) + " s, ")
                   + describeRecorded(trace, row, i);
    return line + parts;
}

} // namespace

QString readableDurations(const QString& line, QStringList* exact)
{
    // "retry in 8.600000001 s" -> "retry in 8.601 s": a duration with more than millisecond
    // digits is rounded up to the next millisecond (waiting that long is always enough); the
    // exact text goes to `exact`.
    static const QRegularExpression duration(R"(\b(retry in|waits|wait|delayed|after) (\d+)\.(\d{4,9}) s\b)");
    QString out;
    qsizetype from = 0;
    for (auto it = duration.globalMatch(line); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        QString frac = m.captured(3).leftJustified(9, '0');
        qint64 whole = m.captured(2).toLongLong();
        qint64 nanos = frac.toLongLong();
        qint64 millis = (nanos + 999'999) / 1'000'000;
        if (millis == 1000) {
            ++whole;
            millis = 0;
        }
        out += line.mid(from, m.capturedStart() - from);
        out += QString("%1 %2.%3 s").arg(m.captured(1)).arg(whole).arg(millis, 3, 10, QChar('0'));
        if (exact)
            *exact << m.captured(0);
        from = m.capturedEnd();
    }
    return out + line.mid(from);
}

QString roundedNote(const QStringList& exact)
{
    return ExplainPanel::tr("Durations rounded up to the millisecond; exactly: %1.").arg(exact.join("; "));
}

WhatHappened whatHappened(const Trace& trace, std::size_t row, std::size_t request, QStringList* exact)
{
    WhatHappened out{readableDurations(QString::fromStdString(lineFor(trace, row, request)), exact), {}};
    if (const std::vector<Header> headers = headersAt(trace, row, request); !headers.empty())
        out.http = QString::fromStdString(ratelab::httpResponse(decisionAt(trace, row, request), headers));
    return out;
}

ExplainPanel::ExplainPanel(QWidget* parent)
    : QWidget(parent)
    , m_heading(new QLabel)
    , m_body(new QTextBrowser)
{
    QFont bold = m_heading->font();
    bold.setBold(true);
    m_heading->setFont(bold);
    // A long heading wraps: pinning a request never widens the panel, nor the window.
    m_heading->setWordWrap(true);
    m_heading->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_body->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_body->setOpenLinks(false);
    m_body->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(m_heading);
    layout->addWidget(m_body, 1);
}

void ExplainPanel::pin(std::optional<std::size_t> i)
{
    m_pinned = i;
    m_stale = true;
    if (m_trace)
        show(m_trace, m_shown);
}

void ExplainPanel::show(std::shared_ptr<const Trace> trace, std::size_t shown)
{
    m_shown = shown;
    if (m_pinned && *m_pinned >= trace->arrivals.size())
        m_pinned.reset();
    std::optional<std::size_t> index = m_pinned;
    if (!index && shown > 0)
        index = std::min(shown, trace->arrivals.size()) - 1;
    m_stale = m_stale || trace != m_trace || index != m_index;
    if (!m_stale)
        return;
    m_trace = std::move(trace);
    m_index = index;
    if (isVisible())
        refresh();
}

void ExplainPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void ExplainPanel::refresh()
{
    // Each line replays its limiter from the start, O(index): done only when someone can read
    // it, not on every slider change with the panel closed.
    m_stale = false;
    if (!m_trace)
        return;
    if (!m_index) {
        m_heading->setText("No request yet");
        m_body->setPlainText("Press Play (Space) or step to the next request (Right) to see what each limiter decides.");
        return;
    }
    QString heading = requestName(*m_trace, *m_index);
    heading[0] = heading[0].toUpper();
    if (m_pinned)
        heading = tr("Pinned: %1 (click an empty spot to unpin)").arg(heading);
    m_heading->setText(heading);
    if (m_veiled) {
        m_body->setPlainText(tr("What each limiter decided is hidden until the question is answered "
                                "(PageDown reveals it)."));
        return;
    }
    QString html;
    QStringList exact;
    for (std::size_t row = 0; row < m_trace->results.size(); ++row) {
        const auto first = decisionOf(*m_trace, row, *m_index);
        if (!first)
            continue;
        const Decision d = decisionAt(*m_trace, row, *first);
        const QColor c = !d.allowed ? RowChart::deniedColor() : d.delay > 0 ? RowChart::delayedColor() : RowChart::admittedColor();
        const QString mark = !d.allowed ? "&#x2715;" : d.delay > 0 ? "&#x25B2;" : "&#x25CF;";
        const WhatHappened words = whatHappened(*m_trace, row, *m_index, &exact);
        html += QString("<p style='margin:2px 0'><span style='color:%1'>%2</span> %3</p>")
                    .arg(c.name(), mark, words.line.toHtmlEscaped());
        if (!words.http.isEmpty())
            html += QString("<pre style='margin:0 0 4px 18px'>%1</pre>").arg(words.http.toHtmlEscaped());
    }
    if (!exact.isEmpty())
        html += "<p style='margin:6px 0 0 0; color:gray'>" + roundedNote(exact).toHtmlEscaped() + "</p>";
    m_body->setHtml(html);
}

void ExplainPanel::setVeiled(bool veiled)
{
    if (veiled == m_veiled)
        return;
    m_veiled = veiled;
    m_stale = true;
    if (isVisible())
        refresh();
}

QString ExplainPanel::text() const { return m_heading->text() + "\n" + m_body->toPlainText(); }

} // namespace ratelab::ui
