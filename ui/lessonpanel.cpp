#include "lessonpanel.h"

#include <QLabel>
#include <QApplication>
#include <QVBoxLayout>

namespace ratelab::ui {

LessonPanel::LessonPanel(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel)
    , m_lesson(new QLabel)
{
    for (QLabel* l : {m_title, m_lesson}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_title);
    layout->addWidget(m_lesson);
    layout->addStretch();
    setLarge(false);
}

void LessonPanel::setLesson(const QString& title, const QString& lesson)
{
    m_title->setText(title.isEmpty() ? "Your own scenario" : title);
    m_lesson->setText(lesson.isEmpty() ? "Move the sliders and watch where the limiters agree and where they "
                                         "differ. Presets (File > Presets) each tell one story."
                                       : lesson);
}

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
    m_title->setFont(title);
}

QString LessonPanel::lesson() const { return m_lesson->text(); }

} // namespace ratelab::ui
