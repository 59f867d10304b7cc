#pragma once
// The in-app guide (Help > Guide, F1; shown once on the first start): first steps, then one
// section per central view saying what it shows and what to try with it, for a first look
// and for teaching. A link "view:NAME" brings that view to the front.
#include <QDialog>

class QTextBrowser;

namespace qsw {

// The guide as HTML: a section with an anchor and a link "view:NAME" for every row of
// viewRows().
QString guideHtml();

class GuideDialog : public QDialog {
    Q_OBJECT
public:
    explicit GuideDialog(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return m_browser; }

signals:
    // A "view:NAME" link was clicked.
    void viewRequested(const QString& name);

private:
    QTextBrowser* m_browser;
};

} // namespace qsw
