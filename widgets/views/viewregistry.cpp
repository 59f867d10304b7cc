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

namespace qsw {

QList<AnalysisView*> createAnalysisViews(ViewContext* context, QWidget* parent)
{
    QList<AnalysisView*> views;
    // In tab order.
    views << new BitMapView(context, parent);
    views << new SlotOrderView(context, parent);
    views << new ScalesView(context, parent);
    views << new ErrorView(context, parent);
    views << new BudgetView(context, parent);
    views << new DiffView(context, parent);
    views << new RecipeView(context, parent);
    views << new VerifyView(context, parent);
    views << new PlaygroundView(context, parent);
    return views;
}

QStringList centralViewNames()
{
    // The order of createAnalysisViews; tst_mainwindow checks the two agree.
    return {QStringLiteral("tensors"), QStringLiteral("metadata"), QStringLiteral("bitmap"),    QStringLiteral("slots"),
            QStringLiteral("scales"),  QStringLiteral("error"),    QStringLiteral("budget"),    QStringLiteral("diff"),
            QStringLiteral("recipe"),  QStringLiteral("verify"),   QStringLiteral("playground")};
}

} // namespace qsw
