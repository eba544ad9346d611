#include "panels/documentfields.h"

#include "arithmetic/decimal.h"
#include "scenario/rows.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"

namespace ratelab::ui {

DocumentFields::DocumentFields(ScenarioDocument* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
{
}

void DocumentFields::bind(SliderValue* control, const QString& what, Apply apply, Show show)
{
    m_fields.push_back({control, std::move(show)});
    // A typed value is checked against the whole scenario it would make, so the message is the
    // one the command line would give ("must be at least 1 (got 0)").
    control->setCheck([this, apply](const QString& text) -> QString {
        try {
            Scenario next = m_document->scenario();
            apply(next, text.toStdString());
            checkScenario(next);
            return {};
        } catch (const InputError& e) {
            return QString::fromUtf8(e.what());
        }
    });
    // A typed value refused is said in the window's banner too, not only in the box's tooltip.
    connect(control, &SliderValue::problemChanged, this, [this, what](const QString& problem) {
        m_document->refuse(problem.isEmpty() ? QString() : what + ": " + problem);
    });
    // A dragged value the scenario cannot take is refused by the document, and the controls show
    // the document again.
    connect(control, &SliderValue::edited, this, [this, what, apply](const QString& text) {
        m_document->change(what, [&](Scenario& s) { apply(s, text.toStdString()); });
    });
}

void DocumentFields::showAll()
{
    const Scenario& s = m_document->scenario();
    for (const Field& f : m_fields) {
        const auto [text, approx] = f.show(s);
        f.control->show(text, approx);
    }
}

std::pair<QString, double> secondsField(Nanos t) { return {QString::fromStdString(formatSeconds(t)), secondsAsDouble(t)}; }
std::pair<QString, double> countField(std::int64_t n) { return {QString::number(n), double(n)}; }

Nanos positiveSeconds(const std::string& text)
{
    const Nanos t = parseSeconds(text);
    if (t <= 0)
        throw InputError("must be greater than 0 s (got " + text + ")");
    return t;
}

Nanos nonNegativeSeconds(const std::string& text)
{
    const Nanos t = parseSeconds(text);
    if (t < 0)
        throw InputError("must not be negative (got " + text + ")");
    return t;
}

} // namespace ratelab::ui
