#include "guide.h"

#include "views/viewregistry.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace qsw {

namespace {

QString viewLink(const char* view, const QString& title)
{
    return QStringLiteral("<a href=\"view:%1\">%2</a>").arg(QLatin1String(view), title.toHtmlEscaped());
}

} // namespace

QString guideHtml()
{
    QString html =
        GuideDialog::tr("<h2>Quantscope guide</h2>"
                        "<p>Quantscope shows how quantized LLM weights are laid out in memory and checks them. "
                        "Every view follows the weight selected in the <b>tensor browser</b> on the left, and an "
                        "element selected in one view is selected in all.</p>");
    html += GuideDialog::tr(
        "<h3>First steps</h3><ol>"
        "<li>Open a .gguf or .safetensors file or a checkpoint folder (File &gt; Open, or drop it on the "
        "window); File &gt; Open Demo Checkpoint has a small one to try.</li>"
        "<li>Pick a weight in the tensor browser (Ctrl+F filters by name or format); a warning mark "
        "says detection left a note on it, shown in its tooltip and in the inspector.</li>"
        "<li>Switch views with the tabs, Ctrl+Tab or Ctrl+PgDown; export one with Ctrl+E.</li></ol>");
    html += GuideDialog::tr("<h3>Views</h3>");
    for (const ViewRow& row : viewRows())
        html += QStringLiteral("<h4><a name=\"%1\"></a>%2</h4><p>%3</p>")
                    .arg(QLatin1String(row.name), viewLink(row.name, viewTitle(row)), viewGuide(row).toHtmlEscaped());
    html +=
        GuideDialog::tr("<h3>For teaching</h3><p>Open one model in two formats (a GPTQ folder and a GGUF of the same "
                        "weights) and compare them in the Diff view; show a group's codes in the Bit map and its scale "
                        "in Scales; let students predict the error of 3 bits against 4 in the Playground before they "
                        "look at the Error view. quantscope FILE --view NAME --weight W --screenshot out.png makes the "
                        "same figure from a script.</p>");
    return html;
}

GuideDialog::GuideDialog(QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("guideDialog"));
    setWindowTitle(tr("Quantscope Guide"));
    m_browser = new QTextBrowser(this);
    m_browser->setOpenLinks(false);
    m_browser->setHtml(guideHtml());
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("view"))
            emit viewRequested(url.path());
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(640, 720);
}

} // namespace qsw
