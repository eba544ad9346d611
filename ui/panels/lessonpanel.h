// LessonPanel shows a scenario's title and lesson beside the charts.
#pragma once

#include <QWidget>

class QLabel;
class QScrollArea;

namespace ratelab::ui {

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(QWidget* parent = nullptr);
    // setLesson shows a title and lesson; `forOriginal` notes that the lesson was written for the
    // preset before its settings were changed.
    void setLesson(const QString& title, const QString& lesson, bool forOriginal = false);
    // setLarge switches to presentation-size text.
    void setLarge(bool large);
    QString lesson() const;
    QString title() const;
    bool showsOriginalNote() const;
    // scrollArea holds the title, note and lesson: it scrolls when they are longer than the panel.
    QScrollArea* scrollArea() const { return m_scroll; }

signals:
    // editRequested asks to edit the title and lesson (the Edit button).
    void editRequested();

private:
    QLabel* m_title;
    QLabel* m_note;
    QLabel* m_lesson;
    QWidget* m_edit;
    QScrollArea* m_scroll;
};

} // namespace ratelab::ui
