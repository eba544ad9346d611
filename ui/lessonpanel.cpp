#include "lessonpanel.h"

#include <QLabel>
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
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * (large ? 1.6 : 1.0));
    m_lesson->setFont(f);
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    m_title->setFont(f);
}

QString LessonPanel::lesson() const { return m_lesson->text(); }

} // namespace ratelab::ui
