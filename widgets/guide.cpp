#include "guide.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace qsw {

namespace {

struct GuideSection {
    const char* view; // centralViewNames()
    QString title, text;
};

QString viewLink(const char* view, const QString& title)
{
    return QStringLiteral("<a href=\"view:%1\">%2</a>").arg(QLatin1String(view), title.toHtmlEscaped());
}

} // namespace

QString guideHtml()
{
    const GuideSection sections[] = {
        {"tensors", GuideDialog::tr("Stored tensors"),
         GuideDialog::tr(
             "Every tensor as the file stores it: type, shape, file, byte offset and size, and the logical weight "
             "it belongs to with its role (qweight, scales, qzeros, ...). Double-click a row to select its "
             "weight. Tensors of a type Quantscope cannot decode are listed in the error colour.")},
        {"metadata", GuideDialog::tr("Metadata"),
         GuideDialog::tr(
             "The container's key/value pairs and the configs beside it. Nested JSON (quantization_config) and "
             "GGUF arrays open as a tree; a long array such as a vocabulary loads a page at a time as you "
             "scroll. general.file_type is shown by the name llama.cpp gives it.")},
        {"bitmap", GuideDialog::tr("Bit map"),
         GuideDialog::tr(
             "What each bit of each stored word of the selected weight means: every field of a word or GGUF "
             "block in the colour of its element. Hover a cell for the word, bit range, element, code, group, "
             "scale, zero and value; click to select the element in every view. Start here to see how a 4-bit "
             "code sits in a 32-bit word.")},
        {"slots", GuideDialog::tr("Slot order"),
         GuideDialog::tr(
             "Which logical element lands in which slot of a packed word or block: the interleaving that makes "
             "GPTQ, AWQ, Marlin and the GGUF k-quants differ although they store the same codes.")},
        {"scales", GuideDialog::tr("Scales"),
         GuideDialog::tr(
             "The per-group scales (or zero points) as a heatmap, groups across and output rows down. Outlier "
             "rows and dead groups stand out; hover for the values, click to open the element in the bit map.")},
        {"error", GuideDialog::tr("Error"),
         GuideDialog::tr(
             "How far the stored values are from a float reference: a histogram of the error and its "
             "statistics per weight. Open the float checkpoint the quantized one was made from to see the real "
             "error; without one the view requantizes the weight to show what other formats would cost.")},
        {"budget", GuideDialog::tr("Budget"),
         GuideDialog::tr(
             "Bits per weight and memory of every format for a model of the size you choose, against your RAM "
             "or VRAM, with the KV cache and buffers of a context length and a GPU offload split. The open "
             "checkpoint is marked.")},
        {"diff", GuideDialog::tr("Diff"),
         GuideDialog::tr(
             "The open checkpoint (A) against a second one (B), weight by weight, Hugging Face and GGUF names "
             "paired: a list worst first and a heatmap of |a − b| for the selected weight. Hover the heatmap "
             "for both values.")},
        {"recipe", GuideDialog::tr("Recipe"),
         GuideDialog::tr(
             "The type the file is labelled with (general.file_type or the quantization config) and every weight "
             "stored otherwise, with the reason: the mix llama-quantize or the quantizer chose.")},
        {"verify", GuideDialog::tr("Verify"),
         GuideDialog::tr(
             "Structural checks of every quantized weight, as quantscope-cli verify runs them: stored words "
             "against what the packers make of their fields, shapes, g_idx, plausible zero points, the config "
             "against the tensors; and a scan of every weight for NaN and Inf values, scales, zeros and "
             "absmax, all-zero weights, rows and blocks, and zero scales. Click a finding to select its weight "
             "and place in every view; double-click to open the place in the Bit map or Scales view.")},
        {"playground", GuideDialog::tr("Playground"),
         GuideDialog::tr(
             "A row of real weights or a synthetic distribution, quantized and packed as a format does it: the "
             "bucket edges, code levels, scale and zero, the codes, the packed words and the error, updating "
             "as you change bits, group size and symmetry. Made for teaching what a quantizer does.")},
    };
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
    for (const GuideSection& s : sections)
        html += QStringLiteral("<h4><a name=\"%1\"></a>%2</h4><p>%3</p>")
                    .arg(QLatin1String(s.view), viewLink(s.view, s.title), s.text.toHtmlEscaped());
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
