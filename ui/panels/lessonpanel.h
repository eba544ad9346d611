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
    // setStep shows where a deck is ("Deck · step 2 of 4") and the step's question: with a hint
    // to reveal while the decisions are hidden, with its answer once revealed. An empty position
    // shows no deck.
    void setStep(const QString& position, const QString& question, const QString& answer, bool revealed);
    QString question() const;
    QString answer() const; // empty while hidden
    // setLarge switches to presentation-size text.
    void setLarge(bool large);
    QString lesson() const;
    QString title() const;
    bool showsOriginalNote() const;
    // scrollBy scrolls the text down (direction 1) or up (-1) by a step, or by a page less a
    // line when `page`; it returns false when the text is already at that end (nothing moved).
    bool scrollBy(int direction, bool page = false);
    // scrollArea holds the note, lesson, question and answer under the title: it scrolls when
    // they are longer than the panel.
    QScrollArea* scrollArea() const { return m_scroll; }
    // titleLabel is the title, above the scrolling text: always in view.
    const QLabel* titleLabel() const { return m_title; }

signals:
    // editRequested asks to edit the title and lesson (the Edit button).
    void editRequested();

private:
    QLabel* m_title;
    QLabel* m_note;
    void showLesson();

    QLabel* m_lesson;
    QString m_lessonText;
    QLabel* m_position;
    QLabel* m_question;
    QLabel* m_answer;
    QWidget* m_edit;
    QScrollArea* m_scroll;
};

} // namespace ratelab::ui
