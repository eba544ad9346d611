// A scenario or a lesson deck as one web page (`ratelab export --html`, `ratelab deck --html`):
// one HTML file with its styles, script and data inside, that a browser opens from disk with no
// network. Its pictures are the dashboard's own, each row drawn to SVG by QSvgGenerator as File >
// Export SVG draws the window, and each mark carries the words What happened shows for it. The
// page's script shows, steps and reveals; it decides nothing.
#pragma once

#include "chart/dashboard.h"
#include "deckfile.h"
#include "replay/dry_run_report.h"

#include <QByteArray>
#include <QSize>
#include <QString>

#include <string>

namespace ratelab::ui {

// htmlText is text as a page's markup carries it: &, <, > and " escaped.
inline QString htmlText(const QString& s) { return s.toHtmlEscaped(); }
inline QString htmlText(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

// scenarioPage is the page of one scenario laid out as an export of `size` over `range` (empty:
// the activity), in the application's theme. InputError from the scenario propagates.
QByteArray scenarioPage(const Scenario& scenario, QSize size, TimeRange range = {});

// deckPage is the page of a deck: a section a step, stepped with presentation mode's keys. With
// answers, every step from the first question on keeps its decisions (chart, counts, answer)
// encoded in the page, decoded when it is shown or its question revealed: a glance at the source
// does not give the answer away (a determined reader can decode it). Without answers the page
// has the questions and the hidden charts only: the decisions are not in the file at all.
QByteArray deckPage(const io::Deck& deck, QSize size, bool answers);

// dryRunReportPage is a dry run's report (`ratelab replay LOG --config FILE --html`): what was not
// replayed first, the headline, the rules, each rule's denials per hour as an SVG bar chart, the
// top keys and the diff, in tables sorted by their column headers. Aggregates only: a report of
// a million requests is as large as one of ten.
QByteArray dryRunPage(const DryRunReport& report);

// pageDocument wraps a body in the page: its language, title, the theme's colours, style and script.
QByteArray pageDocument(const QString& title, const QString& body);

// writePage writes bytes to path atomically; it returns an empty string or one line saying why
// nothing was written.
QString writePage(const QByteArray& page, const QString& path);

} // namespace ratelab::ui
