#include "panels/productgroup.h"

#include "arithmetic/decimal.h"
#include "panels/groupparts.h"
#include "limiters/products/product.h"
#include "model/scenariodocument.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

#include <algorithm>

namespace ratelab::ui {

namespace {

const char* const kProblem = "problem"; // a field's dynamic property: the refusal it shows

} // namespace

ProductGroup::ProductGroup(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("Product options"), parent)
    , m_document(document)
    , m_form(new QFormLayout(this))
{
    setToolTip(tr("What each product row decides with, in the product's own names and units"));
    connect(m_document, &ScenarioDocument::changed, this, &ProductGroup::showDocument);
    showDocument();
}

QLineEdit* ProductGroup::field(Algorithm a, std::string_view name) const
{
    const auto it = m_fields.find({a, std::string(name)});
    return it == m_fields.end() ? nullptr : it->second;
}

void ProductGroup::rebuild(const std::vector<Algorithm>& products)
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_fields.clear();
    for (Algorithm a : products) {
        auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(qstr(algorithmTitle(a)).toHtmlEscaped()));
        title->setObjectName(qstr(algorithmId(a)));
        m_form->addRow(title);
        for (std::string_view name : productOptionNames(a)) {
            auto* field = new QLineEdit;
            const std::string key(name);
            connect(field, &QLineEdit::editingFinished, this, [this, a, key, field] { edited(a, key, field); });
            connect(field, &QLineEdit::textEdited, field, [field] {
                field->setProperty(kProblem, QVariant());
                field->setStyleSheet(QString());
            });
            m_form->addRow(qstr(name), field);
            m_fields[{a, key}] = field;
        }
    }
    m_shown = products;
}

void ProductGroup::showDocument()
{
    const Scenario& s = m_document->scenario();
    std::vector<Algorithm> products;
    std::copy_if(s.algorithms.begin(), s.algorithms.end(), std::back_inserter(products), isProduct);
    setVisible(!products.empty());
    if (products != m_shown)
        rebuild(products);
    for (const auto& [key, field] : m_fields) {
        const auto& [a, name] = key;
        if (field->property(kProblem).isValid() && field->hasFocus())
            continue; // the person is still fixing what was refused
        const auto given = productOptionText(a, s.config, name);
        const bool anyGiven = ProductParams(a, s.config).given();
        const QString text = given ? QString::fromStdString(*given) : QString();
        if (field->text() != text)
            field->setText(text);
        field->setPlaceholderText(anyGiven ? tr("the product's default") : tr("from the Limits"));
        field->setToolTip(anyGiven ? tr("Empty: the product's own default")
                                   : tr("None given: %1 takes the Limits above").arg(qstr(algorithmTitle(a))));
        field->setProperty(kProblem, QVariant());
        if (!field->styleSheet().isEmpty())
            field->setStyleSheet(QString());
    }
}

void ProductGroup::edited(Algorithm a, const std::string& name, QLineEdit* field)
{
    const QString typed = field->text().trimmed();
    const std::optional<std::string> value = typed.isEmpty() ? std::nullopt : std::optional(typed.toStdString());
    const Scenario& now = m_document->scenario();
    if (productOptionText(a, now.config, name) == value)
        return;
    Scenario next = now;
    next.config = withProductOption(now.config, a, name, value);
    try {
        checkProductOptions(next.config, next.algorithms); // the product's own checks
    } catch (const InputError& e) {
        field->setProperty(kProblem, QString::fromUtf8(e.what()));
        field->setToolTip(QString::fromUtf8(e.what()));
        field->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #d73027; }"));
        return;
    }
    m_document->edit(tr("%1 %2").arg(qstr(algorithmTitle(a)), qstr(name)), next);
}

} // namespace ratelab::ui
