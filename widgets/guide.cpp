#include "guide.h"

#include "views/viewregistry.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace qsw {

namespace {

// Each step names what the demo (resources/mkdemo.cpp) really holds there; tst_windowpolish
// opens every step on the demo and checks the weight, element and view exist.
constexpr WalkStep kWalk[] = {
    {"bitmap", "model.layers.0.self_attn.q_proj", 0, 0, QT_TRANSLATE_NOOP("qsw::GuideDialog", "Codes in a word"),
     QT_TRANSLATE_NOOP("qsw::GuideDialog",
                       "A quantized weight stores small integer codes, not numbers. In this GPTQ layer every 32-bit "
                       "word of qweight holds the 4-bit codes of eight neighbouring input columns of one output "
                       "feature: column k sits at bits 4 × (k mod 8). The Bit map colours each code by its element "
                       "and outlines the selected one; hover a code for its value.")},
    {"scales", "model.layers.1.mlp.up_proj", 0, 0, QT_TRANSLATE_NOOP("qsw::GuideDialog", "Scale: one step per group"),
     QT_TRANSLATE_NOOP("qsw::GuideDialog",
                       "A code becomes a value as scale × (code − zero). The 64 input columns of a group share one "
                       "scale per output feature: the heatmap has a cell per group (across) and output row (down). The "
                       "bright lines are groups holding an outlier (the demo makes 0.5 % of its weights 8 times "
                       "larger): one large weight sets its group's step, so every other weight of the group is rounded "
                       "more coarsely. Smaller groups lose less, and store more scales.")},
    {"scales", "model.layers.2.mlp.up_proj", 0, 0, QT_TRANSLATE_NOOP("qsw::GuideDialog", "Zero point"),
     QT_TRANSLATE_NOOP("qsw::GuideDialog",
                       "Symmetric GPTQ (layers 0 and 1) centres every group on its middle code, so the zero point "
                       "is fixed. This AWQ layer is asymmetric: each group also stores a zero point (in qzeros), "
                       "chosen so that its smallest and largest weight land on codes 0 and 15. Switch the view "
                       "from scales to zero points to see them.")},
    {"scales", "model.layers.0.self_attn.q_proj", 0, 3, QT_TRANSLATE_NOOP("qsw::GuideDialog", "Groups in act-order"),
     QT_TRANSLATE_NOOP(
         "qsw::GuideDialog",
         "With act-order, GPTQ quantizes the input columns by importance and forms its groups in that order; g_idx "
         "stores each column's group. Group 0 holds the loudest columns, so its scales are the largest, and they "
         "shrink from group to group. Column 3 is in group 3, not in group 0 as its position (3 / 32) would say: the "
         "outlined cell follows g_idx, as do the Bit map, the Error view and the Playground.")},
    {"bitmap", "model.layers.1.self_attn.q_proj", 0, 10, QT_TRANSLATE_NOOP("qsw::GuideDialog", "Codes across words"),
     QT_TRANSLATE_NOOP(
         "qsw::GuideDialog",
         "3 bits do not divide 32: 32 codes fill exactly three words, and column 10's code has its two low bits at the "
         "top of word 0 and its last bit at the bottom of word 128, the next word along the input axis (a row of "
         "qweight is 128 words). The Bit map draws it in two pieces; the panel beside it shows both words.")},
    {"slots", "model.layers.2.self_attn.q_proj", 0, 0, QT_TRANSLATE_NOOP("qsw::GuideDialog", "Slot order"),
     QT_TRANSLATE_NOOP(
         "qsw::GuideDialog",
         "AWQ's GEMM layout packs eight output features per word in the order 0, 2, 4, 6, 1, 3, 5, 7, which its GPU "
         "kernel unpacks cheaply. Pick a GPTQ format in the view to see the natural order: the same codes in another "
         "order are another file, and a reader that assumes the wrong order decodes every value wrongly.")},
    {"playground", "model.layers.3.mlp.up_proj.weight", 0, 0,
     QT_TRANSLATE_NOOP("qsw::GuideDialog", "Fewer bits, more error"),
     QT_TRANSLATE_NOOP("qsw::GuideDialog",
                       "Quantize a row of this unquantized (bf16) layer yourself: lower the bits from 4 to 3 and watch "
                       "the SQNR fall by about 6 dB for the bit taken away; a smaller group size lowers the error and "
                       "stores one more scale per group.")},
    {"error", "model.layers.3.mlp.up_proj.weight", 0, 0,
     QT_TRANSLATE_NOOP("qsw::GuideDialog", "The whole weight's error"),
     QT_TRANSLATE_NOOP("qsw::GuideDialog",
                       "The Error view quantizes the whole weight to a target format and shows the error of every "
                       "element as a histogram, with its statistics (SQNR, percentiles, the error of y = W x): pick "
                       "another target to see what a conversion would cost before you make it.")},
};

QString viewLink(const char* view, const QString& title)
{
    return QStringLiteral("<a href=\"view:%1\">%2</a>").arg(QLatin1String(view), title.toHtmlEscaped());
}

} // namespace

std::span<const WalkStep> walkSteps()
{
    return kWalk;
}

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
    html += GuideDialog::tr("<h3>The first five minutes</h3><p>A walk on the demo checkpoint for a learner: each "
                            "step opens the demo at the weight, element and view it talks about.</p>");
    html += QStringLiteral("<ol>");
    for (size_t i = 0; i < std::size(kWalk); ++i)
        html +=
            QStringLiteral("<li><a href=\"walk:%1\">%2</a>: %3</li>")
                .arg(i)
                .arg(GuideDialog::tr(kWalk[i].title).toHtmlEscaped(), GuideDialog::tr(kWalk[i].text).toHtmlEscaped());
    html += QStringLiteral("</ol>");
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
        bool isNumber = false;
        const int step = url.path().toInt(&isNumber);
        if (url.scheme() == QLatin1String("walk") && isNumber && step >= 0 && size_t(step) < std::size(kWalk))
            emit walkStepRequested(step);
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(640, 720);
}

} // namespace qsw
