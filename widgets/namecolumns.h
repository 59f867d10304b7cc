#pragma once
// Name columns that stay readable: the columns of figures keep their widths, the name columns
// share what is left of the view and elide in the middle, but never below a readable minimum;
// below it the view scrolls sideways instead (a stretched column of Qt's collapses to a few
// letters, "attn...ight").
#include <QList>

class QTreeView;
class QWidget;

namespace qsw {

// The narrowest a name column gets: about 20 characters of the widget's font.
int readableNameWidth(const QWidget* widget);

// Keeps `columns` of `view` at an equal share of the room the other visible columns leave,
// each at least readableNameWidth, as the view and its other columns change size.
void keepNamesReadable(QTreeView* view, const QList<int>& columns);

} // namespace qsw
