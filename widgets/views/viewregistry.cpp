#include "viewregistry.h"

#include "analysisview.h"
#include "slotorderview.h"

namespace qsw {

QList<AnalysisView*> createAnalysisViews(ViewContext* context, QWidget* parent)
{
    QList<AnalysisView*> views;
    // One line per view, in tab order: views << new BitMapView(context, parent);
    views << new SlotOrderView(context, parent);
    Q_UNUSED(context);
    Q_UNUSED(parent);
    return views;
}

} // namespace qsw
