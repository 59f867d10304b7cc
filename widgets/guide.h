#pragma once
// The in-app guide (Help > Guide, F1; shown once on the first start): first steps, then one
// section per central view saying what it shows and what to try with it, for a first look
// and for teaching. A link "view:NAME" brings that view to the front; the walk for a learner
// ("walk:N" links) opens the demo at the weight, element and view each step talks about.
#include <QDialog>

#include <cstdint>
#include <span>

class QTextBrowser;

namespace qsw {

// One step of the learner's walk on the demo checkpoint: the view, weight and element it
// shows, and what to see there (English, translated in the GuideDialog context).
struct WalkStep {
    const char* view;
    const char* weight;
    int64_t row;
    int64_t col;
    const char* title;
    const char* text;
};
std::span<const WalkStep> walkSteps();

// The guide as HTML: the walk with a link "walk:N" per step, then a section with an anchor
// and a link "view:NAME" for every row of viewRows().
QString guideHtml();

class GuideDialog : public QDialog {
    Q_OBJECT
public:
    explicit GuideDialog(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return m_browser; }

signals:
    // A "view:NAME" link was clicked.
    void viewRequested(const QString& name);
    // A "walk:N" link was clicked: step N of walkSteps().
    void walkStepRequested(int step);

private:
    QTextBrowser* m_browser;
};

} // namespace qsw
