#include "panels/playbackbar.h"

#include "arithmetic/decimal.h"
#include "report/explain.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QToolButton>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {
constexpr int kScrubSteps = 10000;
constexpr int kFrameMs = 33;
constexpr double kSpeeds[] = {0.25, 0.5, 1, 2, 4, 8, 16};
constexpr int kClassroomSeconds = 10;
enum class Media { Back, Play, Pause, Forward };

// mediaIcon draws a transport icon in the palette's button text colour: the style's own icons
// are black whatever the theme, and vanish on a dark one.
QIcon mediaIcon(Media kind, QColor ink)
{
    QPixmap pixmap(QSize(32, 32));
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(ink);
    const auto triangle = [&](double x, bool right) {
        const QPointF pts[3] = {{x, 7}, {x, 25}, {right ? x + 13 : x - 13, 16}};
        p.drawPolygon(pts, 3);
    };
    switch (kind) {
    case Media::Play: triangle(9, true); break;
    case Media::Pause:
        p.drawRect(QRectF(8, 7, 6, 18));
        p.drawRect(QRectF(18, 7, 6, 18));
        break;
    case Media::Forward: triangle(5, true); triangle(16, true); break;
    case Media::Back: triangle(27, false); triangle(16, false); break;
    }
    return QIcon(pixmap);
}

} // namespace

void PlaybackBar::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        syncWidgets();
}

PlaybackBar::PlaybackBar(QWidget* parent)
    : QWidget(parent)
    , m_back(new QToolButton)
    , m_play(new QToolButton)
    , m_forward(new QToolButton)
    , m_speed(new QComboBox)
    , m_scrub(new QSlider(Qt::Horizontal))
    , m_time(new QLabel)
    , m_send(new QToolButton)
    , m_burst(new QToolButton)
    , m_burstSize(new QSpinBox)
{
    m_back->setToolTip("Step back to the previous request (Left)");
    m_play->setToolTip("Play or pause simulated time (Space)");
    m_forward->setToolTip("Step to the next request (Right)");
    // The first choice is a classroom pace: the view plays in about kClassroomSeconds, whatever
    // its span (edge-burst's 0.4 s as slowly as a minute of traffic goes fast).
    m_speed->addItem(tr("%1 s").arg(kClassroomSeconds), 0.0);
    m_speed->setItemData(0, tr("Play the whole view in about %1 seconds").arg(kClassroomSeconds), Qt::ToolTipRole);
    for (double s : kSpeeds)
        m_speed->addItem(QString("%1x").arg(s), s);
    m_speed->setCurrentIndex(0);
    m_speed->setToolTip(tr("Playback speed: the whole view in about %1 s, or simulated seconds per real second")
                            .arg(kClassroomSeconds));
    m_scrub->setRange(0, kScrubSteps);
    m_scrub->setToolTip("Drag to scrub through simulated time");
    m_time->setMinimumWidth(QFontMetrics(font()).horizontalAdvance("t = 00000.000 s") + 8);
    m_send->setText("Send request");
    m_send->setToolTip("Send one request at the playhead (R)");
    m_burst->setText("Burst");
    m_burst->setToolTip("Send a burst of requests at once at the playhead (B)");
    m_burstSize->setRange(2, 1000);
    m_burstSize->setValue(5);
    m_burstSize->setToolTip("Requests in a burst");
    for (QToolButton* b : {m_send, m_burst})
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(m_back);
    layout->addWidget(m_play);
    layout->addWidget(m_forward);
    layout->addWidget(m_speed);
    layout->addWidget(m_scrub, 1);
    layout->addWidget(m_time);
    layout->addSpacing(12);
    layout->addWidget(m_send);
    layout->addWidget(m_burst);
    layout->addWidget(m_burstSize);

    m_timer.setInterval(kFrameMs);
    connect(&m_timer, &QTimer::timeout, this, &PlaybackBar::tick);
    connect(m_play, &QToolButton::clicked, this, &PlaybackBar::togglePlay);
    connect(m_back, &QToolButton::clicked, this, &PlaybackBar::stepBack);
    connect(m_forward, &QToolButton::clicked, this, &PlaybackBar::stepForward);
    connect(m_scrub, &QSlider::valueChanged, this, [this](int v) {
        if (!m_range.isValid())
            return;
        setPlayhead(m_range.from + Nanos(std::llround(double(m_range.to - m_range.from) * v / kScrubSteps)));
    });
    connect(m_send, &QToolButton::clicked, this, [this] { emit sendRequested(m_playheadNanos, 1); });
    connect(m_burst, &QToolButton::clicked, this, [this] { emit sendRequested(m_playheadNanos, burstSize()); });
    syncWidgets();
}

void PlaybackBar::setTrace(std::shared_ptr<const Trace> trace, TimeRange range)
{
    const bool wasAtEnd = atEnd() || !m_range.isValid();
    m_trace = std::move(trace);
    m_range = range;
    // A new scenario keeps the playhead where the teacher left it, unless it showed everything.
    m_playheadNanos = wasAtEnd ? range.to : std::clamp(m_playheadNanos, range.from, range.to);
    m_shown = std::min(m_shown, requestsUpTo(m_playheadNanos));
    if (wasAtEnd)
        m_shown = requestsUpTo(m_playheadNanos);
    syncWidgets();
}

std::size_t PlaybackBar::requestsUpTo(Nanos t) const
{
    if (!m_trace)
        return 0;
    const auto& a = m_trace->arrivals;
    return std::size_t(std::upper_bound(a.begin(), a.end(), t) - a.begin());
}

void PlaybackBar::setClassroomSeconds(double seconds)
{
    m_classroomSeconds = seconds > 0 ? seconds : kClassroomSeconds;
    const QString text = QLocale().toString(m_classroomSeconds, 'g', 4);
    m_speed->setItemText(0, tr("%1 s").arg(text));
    m_speed->setItemData(0, tr("Play the whole view in about %1 seconds").arg(text), Qt::ToolTipRole);
}

double PlaybackBar::speed() const
{
    const double chosen = m_speed->currentData().toDouble();
    if (chosen > 0 || !m_range.isValid())
        return chosen > 0 ? chosen : 1.0;
    return secondsAsDouble(m_range.to - m_range.from) / m_classroomSeconds;
}

void PlaybackBar::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Narrow (a projector, presentation type): the scrubber keeps its room and the sending
    // buttons give way (R and B, and the Playback menu, still send).
    const int sending = m_send->sizeHint().width() + m_burst->sizeHint().width() + m_burstSize->sizeHint().width() + 24;
    const int others = m_back->sizeHint().width() * 3 + m_speed->sizeHint().width() + m_time->minimumWidth() + 40;
    const bool room = width() - others - sending >= 220;
    for (QWidget* w : std::initializer_list<QWidget*>{m_send, m_burst, m_burstSize})
        w->setVisible(room);
}
int PlaybackBar::burstSize() const { return m_burstSize->value(); }

void PlaybackBar::setSpeed(double factor)
{
    const int i = m_speed->findData(factor);
    if (i >= 0)
        m_speed->setCurrentIndex(i);
}

void PlaybackBar::togglePlay()
{
    if (m_timer.isActive()) {
        m_timer.stop();
    } else {
        if (atEnd())
            goToStart();
        m_clock.start();
        m_timer.start();
    }
    syncWidgets();
    emit playheadChanged(m_playheadNanos);
}

void PlaybackBar::tick()
{
    // Simulated time advances by real elapsed time times the speed; the clock is the GUI's,
    // never the limiters'.
    const double elapsedNs = double(m_clock.restart()) * 1e6 * speed();
    Nanos next = m_playheadNanos + Nanos(std::llround(elapsedNs));
    if (next >= m_range.to) {
        next = m_range.to;
        m_timer.stop();
    }
    setPlayhead(next);
}

void PlaybackBar::stepForward()
{
    if (!m_trace)
        return;
    // One request at a time, the requests of a burst too; past the last one, the end. From the
    // end, stepping starts again at the first request.
    if (atEnd())
        goToStart();
    const auto& t = m_trace->arrivals;
    if (m_shown < t.size() && !atEnd())
        moveTo(std::max(t[m_shown], m_range.from), m_shown + 1);
    else
        setPlayhead(m_range.to);
}

void PlaybackBar::stepBack()
{
    if (!m_trace)
        return;
    const auto& t = m_trace->arrivals;
    const std::size_t shown = std::min(m_shown, requestsUpTo(m_range.to));
    if (shown > 1 && t[shown - 2] >= m_range.from)
        moveTo(t[shown - 2], shown - 1);
    else
        goToStart();
}

void PlaybackBar::goToStart()
{
    if (!m_trace)
        return;
    const auto& a = m_trace->arrivals;
    moveTo(m_range.from, std::size_t(std::lower_bound(a.begin(), a.end(), m_range.from) - a.begin()));
}

void PlaybackBar::setPlayhead(Nanos t)
{
    t = std::clamp(t, m_range.from, std::max(m_range.from, m_range.to));
    moveTo(t, requestsUpTo(t));
}

void PlaybackBar::moveTo(Nanos t, std::size_t shown)
{
    if (t == m_playheadNanos && shown == m_shown && m_range.isValid()) {
        syncWidgets();
        return;
    }
    m_playheadNanos = t;
    m_shown = shown;
    syncWidgets();
    emit playheadChanged(t);
}

void PlaybackBar::syncWidgets()
{
    const QColor ink = palette().color(QPalette::ButtonText);
    m_back->setIcon(mediaIcon(Media::Back, ink));
    m_forward->setIcon(mediaIcon(Media::Forward, ink));
    m_play->setIcon(mediaIcon(m_timer.isActive() ? Media::Pause : Media::Play, ink));
    const QSignalBlocker block(m_scrub);
    if (m_range.isValid())
        m_scrub->setValue(int(std::llround(double(m_playheadNanos - m_range.from) / double(m_range.to - m_range.from) * kScrubSteps)));
    m_time->setText(atEnd() ? tr("end") : QString("t = %1 s").arg(QString::fromStdString(explainSeconds(m_playheadNanos))));
}

} // namespace ratelab::ui
