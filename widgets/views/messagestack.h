#pragma once
// A view's content, or in its place a centred, wrapped, selectable message ("Select a
// weight...", a reader's error): the stacked content-or-message pair of the bit-map, scales
// and error views.
#include <QStackedWidget>

class QLabel;

namespace qsw {

class MessageStack : public QStackedWidget {
    Q_OBJECT
public:
    // Takes `content` as the first page.
    explicit MessageStack(QWidget* content, QWidget* parent = nullptr);

    void showMessage(const QString& text);
    void showContent();
    bool showsMessage() const;
    // The message on show; empty while the content is.
    QString message() const;
    QLabel* label() const { return m_label; }

private:
    QWidget* m_content;
    QLabel* m_label;
};

} // namespace qsw
