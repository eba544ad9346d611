// ExplainPanel says in plain words, per algorithm, what happened to the request at the
// playhead: what the limiter found, what it decided and why. The words come from the core.
#pragma once

#include "model/frame.h"

#include <QWidget>

#include <optional>

class QLabel;
class QTextBrowser;

namespace ratelab::ui {

class ExplainPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExplainPanel(QWidget* parent = nullptr);

    // show explains the last request shown (of the first `shown`), or says none is yet.
    void show(std::shared_ptr<const Trace> trace, std::size_t shown);
    // pin explains request i whatever the playhead does, until unpinned (nullopt).
    void pin(std::optional<std::size_t> i);
    std::optional<std::size_t> pinned() const { return m_pinned; }
    // currentRequest is the index explained, if any.
    std::optional<std::size_t> currentRequest() const { return m_index; }
    // setVeiled hides what each limiter decided while a question is asked (the request is still
    // named), and shows it again once revealed.
    void setVeiled(bool veiled);
    // text is what the panel shows; it is brought up to date when the panel is visible.
    QString text() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();

    QLabel* m_heading;
    QTextBrowser* m_body;
    std::shared_ptr<const Trace> m_trace;
    std::optional<std::size_t> m_index;
    std::optional<std::size_t> m_pinned;
    std::size_t m_shown = 0;
    bool m_stale = false;
    bool m_veiled = false;
};

// readableDurations rounds each waiting time in a line of What happened ("retry in
// 8.600000001 s") up to the next millisecond ("retry in 8.601 s": waiting that long is always
// enough) and appends the exact texts it replaced to `exact` (when given).
QString readableDurations(const QString& line, QStringList* exact = nullptr);

// WhatHappened is one row's part of What happened for a request: its line of plain words
// (durations made readable) and the HTTP response a server would send (empty without one). The
// panel and a web page's marks both show it, so a mark says what the panel says.
struct WhatHappened {
    QString line;
    QString http;
};
// whatHappened words request `request` in result `row` of the trace; it is O(request) for a
// plain row (the limiter is replayed from its last checkpoint). The exact durations rounded go to `exact`.
WhatHappened whatHappened(const Trace& trace, std::size_t row, std::size_t request, QStringList* exact = nullptr);
// roundedNote says which exact durations the lines rounded (readableDurations' `exact`).
QString roundedNote(const QStringList& exact);

} // namespace ratelab::ui
