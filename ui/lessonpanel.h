// LessonPanel shows a scenario's title and lesson beside the charts.
#pragma once

#include <QWidget>

class QLabel;

namespace ratelab::ui {

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(QWidget* parent = nullptr);
    void setLesson(const QString& title, const QString& lesson);
    // setLarge switches to presentation-size text.
    void setLarge(bool large);
    QString lesson() const;

private:
    QLabel* m_title;
    QLabel* m_lesson;
};

} // namespace ratelab::ui
