#pragma once
#include <QList>
#include <QStringList>

class QWidget;

namespace qsw {

class AnalysisView;
class ViewContext;

// Every analysis view, in tab order, parented to `parent`.
QList<AnalysisView*> createAnalysisViews(ViewContext* context, QWidget* parent);
// Every central view's name in tab order ("tensors", "metadata", then each analysis view's
// viewName()), known without creating the views: for --help and for checking --view.
QStringList centralViewNames();

} // namespace qsw
