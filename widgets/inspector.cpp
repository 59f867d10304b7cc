#include "inspector.h"

#include "numbers.h"

#include "formats/formatid.h"

#include <QFileInfo>

namespace qsw {

namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>")
        .arg(esc(key), esc(value));
}

} // namespace

Inspector::Inspector(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    setObjectName(QStringLiteral("inspector"));
}

void Inspector::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_weight = -1;
    render();
}

void Inspector::showWeight(int weight)
{
    m_weight = (m_snapshot && weight >= 0 && weight < m_snapshot->weights.size()) ? weight : -1;
    render();
}

void Inspector::setTheme(const Theme& theme)
{
    m_theme = theme;
    render();
}

void Inspector::render()
{
    if (!m_snapshot) {
        setHtml(QStringLiteral("<p>%1</p>").arg(esc(tr("No checkpoint is open."))));
        return;
    }
    setHtml(m_weight < 0 ? summaryHtml() : weightHtml(m_snapshot->weights[m_weight]));
}

QString Inspector::summaryHtml() const
{
    const auto& s = *m_snapshot;
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(esc(QFileInfo(s.path).fileName()));
    html += row(tr("Path"), s.path);
    html += row(tr("Container"), s.ggufVersion ? tr("%1 version %2").arg(s.container).arg(s.ggufVersion) : s.container);
    html += row(tr("Files"), localCount(uint64_t(s.files.size())));
    if (!s.openedAs.isEmpty())
        html += row(tr("Opened as"), s.openedAs);
    html += row(tr("Size on disk"), localBytes(s.diskBytes));
    html += row(tr("Stored tensors"), localCount(uint64_t(s.tensors.size())));
    html += row(tr("Logical weights"), localCount(uint64_t(s.weights.size())));
    html += QStringLiteral("</table>");
    // Which formats, and how much of the checkpoint each one holds (tallied with the snapshot).
    if (!s.formats.isEmpty()) {
        html += QStringLiteral("<h4>%1</h4><table>").arg(esc(tr("Formats")));
        for (const FormatTally& f : s.formats)
            html += QStringLiteral("<tr><td style='padding-right:12px; color:%1'><b>%2</b></td><td>%3</td></tr>")
                        .arg(m_theme.formatColor(f.format).name(), esc(f.format),
                             esc(tr("%n weight(s), %1", nullptr, f.weights).arg(localBytes(f.bytes))));
        html += QStringLiteral("</table>");
    }
    if (!s.leftOut.isEmpty()) {
        html += QStringLiteral("<h4 style='color:%1'>%2</h4><ul>")
                    .arg(m_theme.warning.name(), esc(tr("Left out (in the folder, not read)")));
        for (const auto& f : s.leftOut)
            html += QStringLiteral("<li>%1</li>").arg(esc(f));
        html += QStringLiteral("</ul>");
    }
    if (!s.notes.isEmpty()) {
        html += QStringLiteral("<h4 style='color:%1'>%2</h4><ul>").arg(m_theme.warning.name(), esc(tr("Notes")));
        for (const auto& n : s.notes)
            html += QStringLiteral("<li>%1</li>").arg(esc(n));
        html += QStringLiteral("</ul>");
    }
    html += QStringLiteral("<p style='color:%1'>%2</p>")
                .arg(m_theme.mutedText.name(), esc(tr("Select a weight in the tensor browser to see its details.")));
    return html;
}

QString Inspector::weightHtml(const WeightRow& w) const
{
    QString html = QStringLiteral("<h3>%1</h3>").arg(esc(shownText(w.name)));
    html += QStringLiteral("<p><b style='color:%1'>%2</b></p><table>")
                .arg(m_theme.formatColor(w.format).name(), esc(w.format));
    html += row(tr("Logical shape [out, in]"), shapeText(w.shape));
    if (w.bits)
        html += row(tr("Bits"), localCount(uint64_t(w.bits)));
    if (w.groupSize > 0)
        html += row(tr("Group size"), localCount(uint64_t(w.groupSize)));
    // Zero points and act-order belong to the integer-coded group formats.
    const qs::FormatInfo* info = qs::findFormat(w.format.toStdString());
    if (info && info->integerCodes
        && (info->storage == qs::StorageKind::PackedLinear || info->storage == qs::StorageKind::GroupAffine)) {
        html += row(tr("Zero point"), w.symmetric ? tr("symmetric") : tr("asymmetric"));
        html += row(tr("Act-order"),
                    w.actOrder ? tr("yes (g_idx is not k / group size)")
                               : (w.descAct ? tr("labelled desc_act, but groups are sequential") : tr("no")));
    }
    html += row(tr("Elements"), localCount(w.elements));
    html += row(tr("Stored bytes"), tr("%1 (%2 bytes)").arg(localBytes(w.storedBytes), localCount(w.storedBytes)));
    html += row(tr("Effective bits per weight"), localNumber(w.bitsPerWeight, 'f', 4));
    for (const auto& [k, v] : w.params)
        html += row(k, v);
    html += QStringLiteral("</table>");

    html += QStringLiteral("<h4>%1</h4><table cellspacing='0' cellpadding='2'>").arg(esc(tr("Stored tensors")));
    html += QStringLiteral("<tr><th align='left'>%1</th><th align='left'>%2</th><th align='left'>%3</th><th "
                           "align='left'>%4</th><th align='right'>%5</th></tr>")
                .arg(esc(tr("Role")), esc(tr("Tensor")), esc(tr("Type")), esc(tr("Shape")), esc(tr("Bytes")));
    for (const auto& m : w.members) {
        // The weight's name is in the heading; "….qweight" is enough here.
        const QString shown = m.tensor.startsWith(w.name + QLatin1Char('.')) && m.tensor != w.name
            ? QChar(0x2026) + m.tensor.mid(w.name.size())
            : m.tensor;
        html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td align='right'>%5</td></tr>")
                    .arg(esc(m.role), esc(shownText(shown)), esc(m.dtype), esc(m.shape), esc(localCount(m.bytes)));
    }
    html += QStringLiteral("</table>");

    if (!w.evidence.isEmpty()) {
        html += QStringLiteral("<h4>%1</h4><ul>").arg(esc(tr("Evidence")));
        for (const auto& e : w.evidence)
            html += QStringLiteral("<li>%1</li>").arg(esc(e));
        html += QStringLiteral("</ul>");
    }
    html += QStringLiteral("<h4 style='color:%1'>%2</h4>")
                .arg((w.notes.isEmpty() ? m_theme.ok : m_theme.warning).name(), esc(tr("Notes")));
    if (w.notes.isEmpty()) {
        html += QStringLiteral("<p>%1</p>").arg(esc(tr("Detection found nothing to report.")));
    } else {
        html += QStringLiteral("<ul>");
        for (const auto& n : w.notes)
            html += QStringLiteral("<li>%1</li>").arg(esc(n));
        html += QStringLiteral("</ul>");
    }
    return html;
}

} // namespace qsw
