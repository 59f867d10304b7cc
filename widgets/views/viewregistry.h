#pragma once
// The central views, one row each: the name (--view, showView(), the tab's objectName, the
// guide's "view:NAME" link), the tab title, the guide's paragraph and the class that draws it.
// Everything that lists views (the tabs, --help and --view, the guide) reads these rows; adding
// a view is its files and one row in viewregistry.cpp.
#include <QStringList>

#include <span>

class QMetaObject;
class QWidget;

namespace qsw {

class AnalysisView;
class ViewContext;

struct ViewRow {
    const char* name;
    // Tab title and guide heading, and the guide's text: English, marked for translation in
    // the "qsw::ViewRow" context (viewTitle, viewGuide translate them).
    const char* title;
    const char* guide;
    // The view's class and how to make one; null for the pages MainWindow builds itself (the
    // stored tensors and the metadata).
    const QMetaObject* type;
    AnalysisView* (*create)(ViewContext* context, QWidget* parent);
};

// Every central view in tab order.
std::span<const ViewRow> viewRows();
// The row of an analysis view's class; null for a class no row names.
const ViewRow* viewRowOf(const QMetaObject* type);
QString viewTitle(const ViewRow& row);
QString viewGuide(const ViewRow& row);
// Every row's name in tab order.
QStringList centralViewNames();

} // namespace qsw
