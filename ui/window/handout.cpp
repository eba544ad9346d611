#include "window/handout.h"

#include "chart/dashboard.h"
#include "chart/theme.h"
#include "outputpath.h"

#include <QPainter>
#include <QPdfWriter>
#include <QBuffer>
#include <QTextDocument>

#include <algorithm>

namespace ratelab::ui {

namespace {

// The chart is rendered 1200 pixels wide, as tall as the room left on the page, and scaled onto
// it: its type prints at about 9 pt on A4 and it fills the page.
constexpr int kChartWidth = 1200;

QString html(const io::Deck& deck, std::size_t i, bool answers)
{
    const StepWords w = stepWords(deck, i);
    QString out = QString("<p style='color:#666'>%1</p><h2>%2</h2><p>%3</p>").arg(w.where, w.title, w.lesson);
    if (!w.question.isEmpty())
        out += QObject::tr("<p><b>Question:</b> %1</p>").arg(w.question);
    if (answers && !w.answer.isEmpty())
        out += QObject::tr("<p><b>Answer:</b> %1</p>").arg(w.answer);
    return out;
}

} // namespace

StepWords stepWords(const io::Deck& deck, std::size_t i)
{
    // A path ("/api/login") never breaks at its slash on the page either.
    const auto text = [](const std::string& s) {
        return keepSlashesJoined(QString::fromStdString(s).toHtmlEscaped().replace('\n', "<br>"));
    };
    const io::DeckStep& step = deck.steps.at(i);
    return {text(deck.title) + " \u00b7 " + QObject::tr("step %1 of %2").arg(i + 1).arg(deck.steps.size()),
            text(step.scenario.title), text(step.scenario.lesson), text(step.question), text(step.answer)};
}

bool decisionsHidden(const io::Deck& deck, std::size_t i)
{
    return std::any_of(deck.steps.begin(), deck.steps.begin() + std::ptrdiff_t(i) + 1,
                       [](const io::DeckStep& s) { return !s.question.empty(); });
}

HandoutPage handoutPage(const io::Deck& deck, std::size_t i, bool answers, QSize chartSize)
{
    const io::DeckStep& step = deck.steps.at(i);
    // Without answers, a step's chart is hidden from the first question of the deck on, not only
    // on the steps that ask: a step after a question draws the same traffic decided, its counts
    // the earlier answer ("19 admitted · 13 denied" under "How many of the 32 pass?").
    const bool asked = decisionsHidden(deck, i);
    const TimeRange range = step.hasFocus() ? TimeRange{*step.from, *step.to} : TimeRange{};
    return {html(deck, i, answers), renderOffscreen(step.scenario, chartSize, 1.0, range, !answers && asked)};
}

QString writeHandout(const io::Deck& deck, const QString& path, bool answers)
{
    if (const QString problem = io::outputPathProblem(path); !problem.isEmpty())
        return problem;
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter pdf(&buffer);
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageOrientation(QPageLayout::Landscape);
        pdf.setPageMargins(QMarginsF(15, 12, 15, 12), QPageLayout::Millimeter);
        pdf.setResolution(150);
        pdf.setTitle(QString::fromStdString(deck.title));
        pdf.setCreator("RateLab");
        QPainter painter(&pdf);
        for (std::size_t i = 0; i < deck.steps.size(); ++i) {
            if (i > 0)
                pdf.newPage();
            const QRect page = painter.viewport();
            QTextDocument words;
            words.setDefaultFont(QFont(painter.font().family(), 11));
            words.setTextWidth(page.width());
            words.setHtml(html(deck, i, answers));
            const int top = int(words.size().height()) + 10;
            const QRect room(page.left(), page.top() + top, page.width(), page.height() - top);
            const QSize size(kChartWidth, std::max(480, kChartWidth * room.height() / std::max(1, room.width())));
            const HandoutPage shown = handoutPage(deck, i, answers, size);
            painter.save();
            words.drawContents(&painter);
            painter.restore();
            const QImage& chart = shown.chart;
            const QSize fitted = chart.size().scaled(room.size(), Qt::KeepAspectRatio);
            painter.drawImage(QRect(room.topLeft() + QPoint((room.width() - fitted.width()) / 2, 0), fitted), chart);
        }
    }
    return io::writeFileAtomically(path, bytes);
}

} // namespace ratelab::ui
