#pragma once
// Base of the central analysis views (bit map, slot order, scales, error, budget, diff,
// playground). A view reads the ViewContext, draws core's data, and can paint itself for
// export. Each view class has one row in viewregistry.cpp, which names and titles it.
#include <QWidget>

#include <functional>
#include <string>
#include <vector>

class QPainter;

namespace qsw {

class ViewContext;

class AnalysisView : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisView(ViewContext* context, QWidget* parent = nullptr);

    // The name (--view, showView(), the objectName) and the translated tab title from the
    // class's row in viewregistry.cpp; empty for a class without one.
    QString viewName() const;
    QString title() const;
    // The size the export paints at (logical pixels); the view's current size by default.
    virtual QSize exportSize() const { return size(); }
    // Paints the view into `target` for export. Vector views (QCustomPlot, QPainter diagrams)
    // override it so SVG and PDF stay vector; the default renders the widget.
    virtual void renderExport(QPainter& painter, const QRect& target);
    // What an export shows, drawn above it: the view, checkpoint and weight by default; views
    // add what they show of it (quantity, reference, target). Empty: nothing is open.
    virtual QString exportCaption() const;
    // Why the view has no figure to export now (the Diff view without a B), empty when it has one.
    virtual QString exportProblem() const { return {}; }
    // The view's table as CSV (File > Export Table), empty when it shows none.
    virtual QString tableCsv() const { return {}; }
    // The files an export must not overwrite (the session's inputs).
    std::vector<std::string> exportInputs() const;
    // Work scheduled but not yet started as a job (a debounced recompute): the window counts it
    // as busy, so "idle" for screenshots and tests means the view has settled.
    virtual bool hasPendingWork() const { return false; }

protected:
    ViewContext* context() const { return m_context; }
    // Runs `work` now when the view is in front (no tab or stack of the window shows another
    // page over it), else when it next comes to the front; a later call replaces work still
    // waiting. A checkpoint opened behind another tab costs that view nothing until it is
    // looked at (a million-weight recipe is seconds and hundreds of MiB).
    void whenInFront(std::function<void()> work);
    // Whether work is waiting for the view to come to the front.
    bool waitingForFront() const { return bool(m_waiting); }
    void showEvent(QShowEvent* event) override;

private:
    bool inFront() const;

    ViewContext* m_context;
    std::function<void()> m_waiting;
};

// Writes `view` to `path` as PNG (at twice the logical size), SVG or PDF, chosen by the
// extension, with the view's exportCaption() above it. Through the output guard (outputfile.h:
// atomic, never over or into an input, only ever replacing a regular file), checked before
// the view is drawn: a failed export leaves no file. A view with an exportProblem() writes
// nothing. Returns false with `error` set.
bool exportView(AnalysisView* view, const QString& path, QString* error);
// "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"
QString exportFilter();

} // namespace qsw
