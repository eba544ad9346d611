#include "chart/theme.h"

#include <QApplication>
#include <QChart>
#include <QPainter>
#include <QPalette>
#include <QProxyStyle>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOption>

namespace ratelab::ui {

namespace {

// FramedIndicators is Fusion with a visible frame around check boxes and radio buttons: on a
// dark palette Fusion draws their frame darker than the window, and an unticked box vanishes.
class FramedIndicators : public QProxyStyle {
public:
    FramedIndicators()
        : QProxyStyle(QStyleFactory::create("Fusion"))
    {
    }
    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        const bool dark = option->palette.color(QPalette::Window).lightness() < 128;
        if (!dark || (element != PE_IndicatorCheckBox && element != PE_IndicatorRadioButton))
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        const bool enabled = option->state & State_Enabled;
        painter->setPen(QPen(option->palette.color(enabled ? QPalette::Active : QPalette::Disabled, QPalette::PlaceholderText), 1));
        painter->setBrush(Qt::NoBrush);
        const QRectF r = QRectF(option->rect).adjusted(0.5, 0.5, -0.5, -0.5);
        if (element == PE_IndicatorCheckBox)
            painter->drawRoundedRect(r, 2, 2);
        else
            painter->drawEllipse(r);
        painter->restore();
    }
};

} // namespace

void applyTheme(Theme theme)
{
    QApplication::setStyle(new FramedIndicators);
    QPalette p;
    if (theme == Theme::Dark) {
        const QColor window(0x1f, 0x23, 0x2a), base(0x15, 0x18, 0x1d), text(0xe5, 0xe7, 0xeb);
        p.setColor(QPalette::Window, window);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::AlternateBase, QColor(0x23, 0x28, 0x30));
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::Button, window);
        p.setColor(QPalette::ButtonText, text);
        p.setColor(QPalette::ToolTipBase, base);
        p.setColor(QPalette::ToolTipText, text);
        p.setColor(QPalette::PlaceholderText, QColor(0x9c, 0xa3, 0xaf));
        p.setColor(QPalette::Mid, QColor(0x37, 0x41, 0x51));
        p.setColor(QPalette::Midlight, QColor(0x2b, 0x31, 0x3b));
        p.setColor(QPalette::Dark, QColor(0x11, 0x13, 0x17));
        p.setColor(QPalette::Highlight, QColor(0x25, 0x63, 0xeb));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Link, QColor(0x60, 0xa5, 0xfa));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6b, 0x72, 0x80));
        p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6b, 0x72, 0x80));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6b, 0x72, 0x80));
    } else {
        p = QApplication::style()->standardPalette();
        p.setColor(QPalette::AlternateBase, QColor(0xf8, 0xfa, 0xfc));
        p.setColor(QPalette::Mid, QColor(0xe5, 0xe7, 0xeb));
        // The charts' labels, legends and captions: Fusion's half-transparent black has 4:1 on
        // white, under the 4.5:1 text needs; this grey has 5.3:1 on the window's grey.
        p.setColor(QPalette::PlaceholderText, QColor(0x5f, 0x63, 0x68));
    }
    QApplication::setPalette(p);
}

QString themeId(Theme theme) { return theme == Theme::Dark ? "dark" : "light"; }
Theme themeFromId(const QString& id) { return id == "dark" ? Theme::Dark : Theme::Light; }
bool isDark(const QPalette& palette) { return palette.color(QPalette::Base).lightness() < 128; }

void followPalette(QChart* chart, const QPalette& palette)
{
    if (chart)
        chart->setTheme(isDark(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight);
}

QString keepSlashesJoined(QString text)
{
    constexpr QChar kJoiner(0x2060);
    for (qsizetype i = text.size() - 2; i >= 0; --i)
        if (text[i] == '/' && !text[i + 1].isSpace() && text[i + 1] != kJoiner)
            text.insert(i + 1, kJoiner);
    return text;
}

QString withoutJoiners(QString text) { return text.remove(QChar(0x2060)); }

} // namespace ratelab::ui
