#include "viewregistry.h"

#include "analysisview.h"
#include "bitmapview.h"

namespace qsw {

QList<AnalysisView*> createAnalysisViews(ViewContext* context, QWidget* parent)
{
    QList<AnalysisView*> views;
    // One line per view, in tab order: views << new BitMapView(context, parent);
    views << new BitMapView(context, parent);
    Q_UNUSED(context);
    Q_UNUSED(parent);
    return views;
}

} // namespace qsw
