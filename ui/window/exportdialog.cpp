#include "window/exportdialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QLabel>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace ratelab::ui {

ExportDialog::ExportDialog(QSize size, double scale, const QString& path, QWidget* parent)
    : QDialog(parent)
    , m_path(new QLineEdit(path))
    , m_width(new QSpinBox)
    , m_height(new QSpinBox)
    , m_scale(new QDoubleSpinBox)
{
    setWindowTitle("Export image");
    m_width->setRange(320, 8000);
    m_height->setRange(240, 8000);
    m_width->setSuffix(" px");
    m_height->setSuffix(" px");
    m_width->setValue(size.width());
    m_height->setValue(size.height());
    m_scale->setRange(1, 4);
    m_scale->setSingleStep(0.5);
    m_scale->setSuffix("x");
    m_scale->setValue(scale);
    m_scale->setToolTip("2x gives crisp text on slides and high-density screens");
    auto* browse = new QPushButton("Browse…");
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* form = new QFormLayout(this);
    auto* fileLabel = new QLabel(tr("&File")); // a row of a layout has no buddy of its own: name one
    fileLabel->setBuddy(m_path);
    form->addRow(fileLabel, pathRow);
    form->addRow("&Width", m_width);
    form->addRow("&Height", m_height);
    form->addRow("&Scale", m_scale);
    form->addRow(buttons);
}

void ExportDialog::browse()
{
    const QString p = QFileDialog::getSaveFileName(this, "Export image", m_path->text(), "PNG image (*.png)");
    if (!p.isEmpty())
        m_path->setText(p.endsWith(".png", Qt::CaseInsensitive) ? p : p + ".png");
}

QString ExportDialog::path() const { return m_path->text(); }
QSize ExportDialog::imageSize() const { return {m_width->value(), m_height->value()}; }
double ExportDialog::scale() const { return m_scale->value(); }

} // namespace ratelab::ui
