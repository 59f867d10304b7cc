#pragma once
// A view's content, or in its place a centred, wrapped, selectable message ("Select a
// weight...", a reader's error), with a button under it when the message offers one (restart
// after a cancel): the stacked content-or-message pair of the bit-map, scales and error views.
#include <QStackedWidget>

class QLabel;
class QPushButton;

namespace qsw {

class MessageStack : public QStackedWidget {
    Q_OBJECT
public:
    // Takes `content` as the first page.
    explicit MessageStack(QWidget* content, QWidget* parent = nullptr);

    // `withButton`: button() shows under the text (its caption and action are the view's).
    void showMessage(const QString& text, bool withButton = false);
    void showContent();
    bool showsMessage() const;
    // The message on show; empty while the content is.
    QString message() const;
    QLabel* label() const { return m_label; }
    QPushButton* button() const { return m_button; }

private:
    QWidget* m_content;
    QWidget* m_page;
    QLabel* m_label;
    QPushButton* m_button;
};

} // namespace qsw
