// DocumentFields binds SliderValue controls to values of the document's scenario: each control
// shows its value's exact text, checks typed text against the whole scenario it would make, and
// turns a touch into one undoable edit of that value only.
#pragma once

#include "scenario/scenario.h"

#include <QObject>
#include <QString>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ratelab::ui {

class ScenarioDocument;
class SliderValue;

class DocumentFields : public QObject {
    Q_OBJECT
public:
    using Apply = std::function<void(Scenario&, const std::string&)>;            // parses; throws InputError
    using Show = std::function<std::pair<QString, double>(const Scenario&)>;     // exact text, slider value

    DocumentFields(ScenarioDocument* document, QObject* parent);

    // bind makes control edit the value `apply` sets ("what" names it for Edit > Undo).
    void bind(SliderValue* control, const QString& what, Apply apply, Show show);
    // showAll shows the document's values in every bound control.
    void showAll();

private:
    struct Field {
        SliderValue* control;
        Show show;
    };
    ScenarioDocument* m_document;
    std::vector<Field> m_fields;
};

// The controls' shared readings of a value: exact text and the slider's approximation.
std::pair<QString, double> secondsField(Nanos t);
std::pair<QString, double> countField(std::int64_t n);
// positiveSeconds and nonNegativeSeconds parse a typed duration, refusing 0 or less / below 0.
Nanos positiveSeconds(const std::string& text);
Nanos nonNegativeSeconds(const std::string& text);

} // namespace ratelab::ui
