// ProductGroup: the chosen product models' own options, in the products' names and units.
#pragma once

#include "limiters/limiter.h"

#include <QGroupBox>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

class QFormLayout;
class QLineEdit;

namespace ratelab::ui {

class ScenarioDocument;

// ProductGroup shows and edits each chosen product's options as the product spells them
// (Traefik's average, period and burst; Envoy's max_tokens, tokens_per_fill, fill_interval): what
// a product row decides with. A product given none of them takes the Limits (the group says
// so); an edit of the Limits never rewrites them. A value the product refuses stays in its box,
// marked with the product's reason, and the document does not change.
class ProductGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit ProductGroup(ScenarioDocument* document, QWidget* parent = nullptr);

    // field returns the box of product a's option `name`, or nullptr when it is not shown.
    QLineEdit* field(Algorithm a, std::string_view name) const;

private:
    void showDocument();
    void rebuild(const std::vector<Algorithm>& products);
    void edited(Algorithm a, const std::string& name, QLineEdit* field);

    ScenarioDocument* m_document;
    QFormLayout* m_form;
    std::vector<Algorithm> m_shown;
    std::map<std::pair<Algorithm, std::string>, QLineEdit*> m_fields;
};

} // namespace ratelab::ui
