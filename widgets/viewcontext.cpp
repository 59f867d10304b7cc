#include "viewcontext.h"

#include "analysis/imatrix.h"
#include "container/checkpoint.h"
#include "jobrunner.h"
#include "qtext.h"

#include <QFileInfo>

namespace qsw {

ViewContext::ViewContext(QObject* parent)
    : QObject(parent)
    , m_jobs(new JobRunner(this))
{
}

const qs::LogicalWeight* ViewContext::logicalWeight() const
{
    if (!m_checkpoint || m_weight < 0 || size_t(m_weight) >= m_checkpoint->weights.size())
        return nullptr;
    return &m_checkpoint->weights[size_t(m_weight)];
}

std::vector<std::string> ViewContext::inputs() const
{
    std::vector<std::string> out;
    for (const auto& c : {m_checkpoint, m_reference, m_comparison})
        if (c)
            for (std::string& s : c->sources())
                out.push_back(std::move(s));
    if (m_imatrix)
        out.push_back(m_imatrix->path);
    return out;
}

const WeightRow* ViewContext::weightRow() const
{
    if (!m_snapshot || m_weight < 0 || m_weight >= m_snapshot->weights.size())
        return nullptr;
    // Rows are made on demand: the selected one is made once and kept until the selection changes.
    if (m_rowOf != m_weight || m_rowSnapshot != m_snapshot.get()) {
        m_row = std::make_unique<WeightRow>(m_snapshot->weights[m_weight]);
        m_rowOf = m_weight;
        m_rowSnapshot = m_snapshot.get();
    }
    return m_row.get();
}

QString ViewContext::checkpointFolder() const
{
    if (!m_checkpoint)
        return {};
    const QFileInfo fi(qtext(m_checkpoint->path));
    return fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
}

void ViewContext::setCheckpoint(std::shared_ptr<const qs::Checkpoint> checkpoint,
                                std::shared_ptr<const CheckpointSnapshot> snapshot, bool keepSession)
{
    // Jobs computed on the old checkpoint would land on the wrong data.
    m_jobs->cancelAll();
    m_checkpoint = std::move(checkpoint);
    m_snapshot = std::move(snapshot);
    m_weight = -1;
    m_row.reset();
    m_rowOf = -1;
    m_hovered = {};
    m_selected = {};
    const bool hadReference = m_reference != nullptr, hadComparison = m_comparison != nullptr;
    if (!keepSession || !m_checkpoint) {
        m_reference.reset();
        m_comparison.reset();
    }
    emit checkpointChanged();
    setFlaggedWeights({});
    if (hadReference && !m_reference)
        emit referenceChanged();
    if (hadComparison && !m_comparison)
        emit comparisonChanged();
    emit weightChanged(-1);
}

void ViewContext::setFlaggedWeights(const QSet<int>& weights)
{
    if (weights == m_flagged)
        return;
    m_flagged = weights;
    emit flaggedWeightsChanged();
}

void ViewContext::setReference(std::shared_ptr<const qs::Checkpoint> reference)
{
    if (reference == m_reference)
        return;
    m_reference = std::move(reference);
    emit referenceChanged();
}

void ViewContext::setComparison(std::shared_ptr<const qs::Checkpoint> comparison)
{
    if (comparison == m_comparison)
        return;
    m_comparison = std::move(comparison);
    emit comparisonChanged();
}

void ViewContext::setImatrix(std::shared_ptr<const qs::Imatrix> imatrix)
{
    if (imatrix == m_imatrix)
        return;
    m_imatrix = std::move(imatrix);
    emit imatrixChanged();
}

void ViewContext::setWeight(int weight)
{
    if (weight == m_weight)
        return;
    m_weight = weight;
    m_hovered = {};
    m_selected = {};
    emit weightChanged(weight);
}

void ViewContext::setTheme(const Theme& theme)
{
    m_theme = theme;
    emit themeChanged();
}

void ViewContext::setHovered(const ElementRef& element)
{
    if (element == m_hovered)
        return;
    m_hovered = element;
    emit hoveredChanged(element);
}

void ViewContext::setSelected(const ElementRef& element)
{
    if (element == m_selected)
        return;
    m_selected = element;
    emit selectedChanged(element);
}

void ViewContext::requestView(const QString& name)
{
    emit viewRequested(name);
}

void ViewContext::requestWeight(int weight)
{
    emit weightRequested(weight);
}

} // namespace qsw
