#include "panels/lessonpanel.h"

#include "chart/theme.h"

#include <QLabel>
#include <QApplication>

#include <algorithm>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace ratelab::ui {

LessonPanel::LessonPanel(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel)
    , m_note(new QLabel)
    , m_lesson(new QLabel)
    , m_position(new QLabel)
    , m_question(new QLabel)
    , m_answer(new QLabel)
{
    for (QLabel* l : {m_title, m_note, m_lesson, m_position, m_question, m_answer}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_note->setText(tr("Written for the preset as it was: the settings have changed since."));
    m_note->setStyleSheet("QLabel { color: #b45309; font-style: italic; }");
    m_note->hide();
    auto* edit = new QPushButton(tr("Edit title and le&sson\u2026"));
    m_edit = edit;
    edit->setToolTip(tr("Write your own title and lesson: they are saved with the scenario"));
    connect(edit, &QPushButton::clicked, this, &LessonPanel::editRequested);
    // The text scrolls when it is longer than the panel (a long lesson in presentation type on a
    // 1280x720 projector): never cut off at the bottom. The step's place in the deck and its title
    // stay above it, as the button below: an answer scrolled into view never takes the title away.
    auto* body = new QWidget;
    auto* text = new QVBoxLayout(body);
    text->setContentsMargins(0, 0, 0, 0);
    QFont small = m_position->font();
    small.setItalic(true);
    m_position->setFont(small);
    m_question->setTextFormat(Qt::RichText);
    m_answer->setTextFormat(Qt::RichText);
    text->addWidget(m_note);
    text->addWidget(m_lesson);
    text->addSpacing(6);
    text->addWidget(m_question);
    text->addWidget(m_answer);
    setStep({}, {}, {}, true);
    text->addStretch();
    m_scroll = new QScrollArea;
    m_scroll->setWidget(body);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->viewport()->setAutoFillBackground(false);
    body->setAutoFillBackground(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_position);
    layout->addWidget(m_title);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(edit, 0, Qt::AlignLeft);
    setLarge(false);
}

QString LessonPanel::title() const { return m_title->text(); }
bool LessonPanel::showsOriginalNote() const { return !m_note->isHidden(); }

void LessonPanel::setLesson(const QString& title, const QString& lesson, bool forOriginal)
{
    m_note->setVisible(forOriginal && !lesson.isEmpty());
    m_title->setText(title.isEmpty() ? "Your own scenario" : title);
    if (lesson != m_lessonText) // another text is read from its start
        m_scroll->verticalScrollBar()->setValue(0);
    m_lessonText = lesson;
    showLesson();
}

void LessonPanel::showLesson()
{
    // A deck's step without a narrative shows none (the prompt to move the sliders is for a
    // scenario explored alone).
    m_lesson->setVisible(!m_lessonText.isEmpty() || m_position->isHidden());
    // A path ("/api/login") or a rate ("10/s") is never broken across lines at its slash.
    m_lesson->setText(!m_lessonText.isEmpty() || !m_position->isHidden()
                          ? keepSlashesJoined(m_lessonText)
                          : tr("Move the sliders and watch where the limiters agree and where they differ. Presets "
                               "(File > Presets) each tell one story."));
}

void LessonPanel::setStep(const QString& position, const QString& question, const QString& answer, bool revealed)
{
    m_position->setText(position);
    m_position->setVisible(!position.isEmpty());
    showLesson();
    m_question->setVisible(!question.isEmpty());
    m_question->setText(question.isEmpty() ? QString()
                        : revealed         ? tr("<b>Question:</b> %1").arg(keepSlashesJoined(question.toHtmlEscaped()))
                                           : tr("<b>Question:</b> %1<br><i>The decisions are hidden: PageDown (or Right) "
                                                "reveals them.</i>")
                                         .arg(keepSlashesJoined(question.toHtmlEscaped())));
    const bool answered = revealed && !answer.isEmpty() && !question.isEmpty();
    m_answer->setVisible(answered);
    m_answer->setText(answered ? tr("<b>Answer:</b> %1").arg(keepSlashesJoined(answer.toHtmlEscaped())) : QString());
    if (answered) // the answer in view, whatever the narrative above it took (a clicker cannot scroll)
        QTimer::singleShot(0, this, [this] { m_scroll->ensureWidgetVisible(m_answer, 0, 0); });
}

QString LessonPanel::question() const { return m_question->isHidden() ? QString() : withoutJoiners(m_question->text()); }
QString LessonPanel::answer() const { return m_answer->isHidden() ? QString() : withoutJoiners(m_answer->text()); }

void LessonPanel::setLarge(bool large)
{
    // Only what differs from the inherited font is set, so the normal size follows the
    // application's font again after presentation mode.
    QFont lesson, title;
    title.setBold(true);
    if (large) {
        const double size = QApplication::font().pointSizeF();
        lesson.setPointSizeF(size * 1.3);
        title.setPointSizeF(size * 1.5);
    }
    m_lesson->setFont(lesson);
    m_question->setFont(lesson);
    m_answer->setFont(lesson);
    m_title->setFont(title);
    m_edit->setVisible(!large); // on the projector, only the words
}

bool LessonPanel::scrollBy(int direction, bool page)
{
    QScrollBar* bar = m_scroll->verticalScrollBar();
    if (direction > 0 ? bar->value() >= bar->maximum() : bar->value() <= bar->minimum())
        return false;
    // A page keeps its last line in view, so the reader finds the place again.
    const int line = m_lesson->fontMetrics().lineSpacing();
    const int by = page ? std::max(line, bar->pageStep() - line) : std::max(bar->singleStep(), line);
    bar->setValue(bar->value() + (direction > 0 ? by : -by));
    return true;
}

QString LessonPanel::lesson() const { return withoutJoiners(m_lesson->text()); }

} // namespace ratelab::ui
