#pragma once
#include <QList>

class QWidget;

namespace qsw {

class AnalysisView;
class ViewContext;

// Every analysis view, in tab order, parented to `parent`.
QList<AnalysisView*> createAnalysisViews(ViewContext* context, QWidget* parent);

} // namespace qsw
