// ExportDialog asks where to save the dashboard image and at what size and scale.
#pragma once

#include <QDialog>

class QLineEdit;
class QSpinBox;
class QDoubleSpinBox;

namespace ratelab::ui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(QSize size, double scale, const QString& path, QWidget* parent = nullptr);

    QString path() const;
    QSize imageSize() const;
    double scale() const;

private:
    void browse();

    QLineEdit* m_path;
    QSpinBox* m_width;
    QSpinBox* m_height;
    QDoubleSpinBox* m_scale;
};

} // namespace ratelab::ui
