#include "messagestack.h"

#include "snapshot.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace qsw {

MessageStack::MessageStack(QWidget* content, QWidget* parent)
    : QStackedWidget(parent)
    , m_content(content)
    , m_page(new QWidget(this))
    , m_label(new QLabel(m_page))
    , m_button(new QPushButton(m_page))
{
    m_label->setAlignment(Qt::AlignCenter);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_button->hide();
    auto* layout = new QVBoxLayout(m_page);
    layout->addStretch(1);
    layout->addWidget(m_label);
    layout->addWidget(m_button, 0, Qt::AlignHCenter);
    layout->addStretch(1);
    addWidget(m_content);
    addWidget(m_page);
}

void MessageStack::showMessage(const QString& text, bool withButton)
{
    m_label->setText(shownText(text, kMaxShownMessage));
    m_button->setVisible(withButton);
    setCurrentWidget(m_page);
}

void MessageStack::showContent()
{
    setCurrentWidget(m_content);
}

bool MessageStack::showsMessage() const
{
    return currentWidget() == m_page;
}

QString MessageStack::message() const
{
    return showsMessage() ? m_label->text() : QString();
}

} // namespace qsw
