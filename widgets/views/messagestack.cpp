#include "messagestack.h"

#include "snapshot.h"

#include <QLabel>

namespace qsw {

MessageStack::MessageStack(QWidget* content, QWidget* parent)
    : QStackedWidget(parent)
    , m_content(content)
    , m_label(new QLabel(this))
{
    m_label->setAlignment(Qt::AlignCenter);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    addWidget(m_content);
    addWidget(m_label);
}

void MessageStack::showMessage(const QString& text)
{
    m_label->setText(shownText(text, kMaxShownMessage));
    setCurrentWidget(m_label);
}

void MessageStack::showContent()
{
    setCurrentWidget(m_content);
}

bool MessageStack::showsMessage() const
{
    return currentWidget() == m_label;
}

QString MessageStack::message() const
{
    return showsMessage() ? m_label->text() : QString();
}

} // namespace qsw
