// ErrorBanner is the one place in the window that says what the app refused or could not draw.
//
// It keeps two reasons apart: an edit the document refused (cleared once the document changes
// again, so the cause is gone) and a frame that could not be built (cleared by the next frame
// that could). While either is set it shows, above the charts, in the window and in presentation
// mode alike; the close button dismisses what it shows until a new reason comes.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace ratelab::ui {

class ErrorBanner : public QFrame {
    Q_OBJECT
public:
    explicit ErrorBanner(QWidget* parent = nullptr);

    // setRefusal shows why an edit was refused ("Cost: ..."); an empty text clears it.
    void setRefusal(const QString& why);
    // setFrameError shows why the current settings could not be simulated; empty clears it.
    void setFrameError(const QString& why);
    QString refusal() const { return m_refusal; }
    QString frameError() const { return m_frameError; }
    // text is what the banner says now (empty when hidden).
    QString text() const;

private:
    void update();

    QLabel* m_label;
    QToolButton* m_close;
    QString m_refusal;
    QString m_frameError;
};

} // namespace ratelab::ui
