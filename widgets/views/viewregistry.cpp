#include "viewregistry.h"

#include "analysisview.h"
#include "bitmapview.h"
#include "budgetview.h"
#include "diffview.h"
#include "errorview.h"
#include "playgroundview.h"
#include "recipeview.h"
#include "scalesview.h"
#include "slotorderview.h"
#include "verifyview.h"

#include <QCoreApplication>

namespace qsw {

namespace {

template <class View>
ViewRow viewRow(const char* name, const char* title, const char* guide)
{
    return {name, title, guide, &View::staticMetaObject,
            [](ViewContext* context, QWidget* parent) -> AnalysisView* { return new View(context, parent); }};
}

// In tab order.
const ViewRow kViews[] = {
    {"tensors", QT_TRANSLATE_NOOP("qsw::ViewRow", "Stored tensors"),
     QT_TRANSLATE_NOOP(
         "qsw::ViewRow",
         "Every tensor as the file stores it: type, shape, file, byte offset and size, and the logical weight "
         "it belongs to with its role (qweight, scales, qzeros, ...). Double-click a row to select its "
         "weight. Tensors of a type Quantscope cannot decode are listed in the error colour."),
     nullptr, nullptr},
    {"metadata", QT_TRANSLATE_NOOP("qsw::ViewRow", "Metadata"),
     QT_TRANSLATE_NOOP(
         "qsw::ViewRow",
         "The container's key/value pairs and the configs beside it. Nested JSON (quantization_config) and "
         "GGUF arrays open as a tree; a long array such as a vocabulary loads a page at a time as you "
         "scroll. general.file_type is shown by the name llama.cpp gives it."),
     nullptr, nullptr},
    viewRow<BitMapView>(
        "bitmap", QT_TRANSLATE_NOOP("qsw::ViewRow", "Bit map"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "What each bit of each stored word of the selected weight means: every field of a word or GGUF "
            "block in the colour of its element. Hover a cell for the word, bit range, element, code, group, "
            "scale, zero and value; click to select the element in every view. Start here to see how a 4-bit "
            "code sits in a 32-bit word.")),
    viewRow<SlotOrderView>(
        "slots", QT_TRANSLATE_NOOP("qsw::ViewRow", "Slot Order"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "Which logical element lands in which slot of a packed word or block: the interleaving that makes "
            "GPTQ, AWQ, Marlin and the GGUF k-quants differ although they store the same codes.")),
    viewRow<ScalesView>(
        "scales", QT_TRANSLATE_NOOP("qsw::ViewRow", "Scales"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "The per-group scales (or zero points) as a heatmap, groups across and output rows down. Outlier "
            "rows and dead groups stand out; hover for the values, click to open the element in the bit map.")),
    viewRow<ErrorView>(
        "error", QT_TRANSLATE_NOOP("qsw::ViewRow", "Error"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "How far the stored values are from a float reference: a histogram of the error and its "
            "statistics per weight. Open the float checkpoint the quantized one was made from to see the real "
            "error; without one the view requantizes the weight to show what other formats would cost.")),
    viewRow<BudgetView>(
        "budget", QT_TRANSLATE_NOOP("qsw::ViewRow", "Budget"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "Bits per weight and memory of every format for a model of the size you choose, against your RAM "
            "or VRAM, with the KV cache and buffers of a context length and a GPU offload split. The open "
            "checkpoint is marked.")),
    viewRow<DiffView>(
        "diff", QT_TRANSLATE_NOOP("qsw::ViewRow", "Diff"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "The open checkpoint (A) against a second one (B), weight by weight, Hugging Face and GGUF names "
            "paired: a list worst first and a heatmap of |a − b| for the selected weight. Hover the heatmap "
            "for both values.")),
    viewRow<RecipeView>(
        "recipe", QT_TRANSLATE_NOOP("qsw::ViewRow", "Recipe"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "The type the file is labelled with (general.file_type or the quantization config) and every weight "
            "stored otherwise, with the reason: the mix llama-quantize or the quantizer chose.")),
    viewRow<VerifyView>(
        "verify", QT_TRANSLATE_NOOP("qsw::ViewRow", "Verify"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "Structural checks of every quantized weight, as quantscope-cli verify runs them: stored words "
            "against what the packers make of their fields, shapes, g_idx, plausible zero points, the config "
            "against the tensors; and a scan of every weight for NaN and Inf values, scales, zeros and "
            "absmax, all-zero weights, rows and blocks, and zero scales. Click a finding to select its weight "
            "and place in every view; double-click to open the place in the Bit map or Scales view.")),
    viewRow<PlaygroundView>(
        "playground", QT_TRANSLATE_NOOP("qsw::ViewRow", "Playground"),
        QT_TRANSLATE_NOOP(
            "qsw::ViewRow",
            "A row of real weights or a synthetic distribution, quantized and packed as a format does it: the "
            "bucket edges, code levels, scale and zero, the codes, the packed words and the error, updating "
            "as you change bits, group size and symmetry. Made for teaching what a quantizer does.")),
};

} // namespace

std::span<const ViewRow> viewRows()
{
    return kViews;
}

const ViewRow* viewRowOf(const QMetaObject* type)
{
    for (const ViewRow& row : kViews)
        if (row.type == type)
            return &row;
    return nullptr;
}

QString viewTitle(const ViewRow& row)
{
    return QCoreApplication::translate("qsw::ViewRow", row.title);
}

QString viewGuide(const ViewRow& row)
{
    return QCoreApplication::translate("qsw::ViewRow", row.guide);
}

QStringList centralViewNames()
{
    QStringList names;
    for (const ViewRow& row : kViews)
        names << QLatin1String(row.name);
    return names;
}

} // namespace qsw
