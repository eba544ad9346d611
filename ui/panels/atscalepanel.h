// AtScalePanel shows what each shown limiter's state costs for many active keys: its worst case
// for one key at the document's config, and that times the number of keys (1 to 10 million),
// from the same memory model `ratelab memory` prints and the simulation reports.
#pragma once

#include <QWidget>

#include <cstdint>

class QTableWidget;

namespace ratelab::ui {

class ScenarioDocument;
class SliderValue;

class AtScalePanel : public QWidget {
    Q_OBJECT
public:
    static constexpr std::int64_t kMaxKeys = 10'000'000;

    explicit AtScalePanel(ScenarioDocument* document, QWidget* parent = nullptr);
    SliderValue* keys() const { return m_keysControl; }
    QTableWidget* table() const { return m_table; }

private:
    void refresh();
    ScenarioDocument* m_document;
    SliderValue* m_keysControl;
    QTableWidget* m_table;
    std::int64_t m_keys = 10'000;
};

} // namespace ratelab::ui
