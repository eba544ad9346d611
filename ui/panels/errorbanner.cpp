#include "panels/errorbanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace ratelab::ui {

ErrorBanner::ErrorBanner(QWidget* parent)
    : QFrame(parent)
    , m_label(new QLabel(this))
    , m_close(new QToolButton(this))
{
    setObjectName("errorBanner");
    // Red on pale red (dark red in the dark theme): readable in both themes and on a projector.
    setStyleSheet("QFrame#errorBanner { background: palette(base); border: 2px solid #d73027; border-radius: 3px; }");
    setAutoFillBackground(true);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    m_close->setAutoRaise(true);
    m_close->setText(QString::fromUtf8("\u00d7"));
    m_close->setToolTip(tr("Hide this message until the next one"));
    m_close->setAccessibleName(tr("Hide this message")); // its text, a cross, names nothing
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    auto* icon = new QLabel(this);
    const int size = fontMetrics().height();
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(size, size));
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

void ErrorBanner::setRefusal(const QString& why)
{
    if (why == m_refusal)
        return;
    m_refusal = why;
    update();
}

void ErrorBanner::setFrameError(const QString& why)
{
    if (why == m_frameError)
        return;
    m_frameError = why;
    update();
}

QString ErrorBanner::text() const { return isHidden() ? QString() : m_label->text(); }

void ErrorBanner::update()
{
    QStringList lines;
    if (!m_frameError.isEmpty())
        lines << tr("<b>These settings cannot be simulated:</b> %1. The charts are greyed: they show the last "
                    "settings that could be.")
                     .arg(m_frameError.toHtmlEscaped());
    if (!m_refusal.isEmpty())
        lines << tr("<b>Not changed:</b> %1").arg(m_refusal.toHtmlEscaped());
    m_label->setText(lines.join("<br>"));
    setVisible(!lines.isEmpty());
}

} // namespace ratelab::ui
