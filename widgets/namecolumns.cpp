#include "namecolumns.h"

#include <QEvent>
#include <QHeaderView>
#include <QTreeView>

#include <algorithm>

namespace qsw {

namespace {

constexpr int kReadableNameChars = 20;

class NameColumnsFit : public QObject {
public:
    NameColumnsFit(QTreeView* view, const QList<int>& columns)
        : QObject(view)
        , m_view(view)
        , m_columns(columns)
    {
        QHeaderView* header = view->header();
        header->setStretchLastSection(false);
        for (int c : m_columns)
            header->setSectionResizeMode(c, QHeaderView::Interactive);
        view->setTextElideMode(Qt::ElideMiddle);
        view->viewport()->installEventFilter(this);
        connect(header, &QHeaderView::sectionResized, this, [this](int column) {
            if (!m_columns.contains(column))
                fit();
        });
        connect(header, &QHeaderView::sectionCountChanged, this, &NameColumnsFit::fit);
        fit();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize || event->type() == QEvent::Show)
            fit();
        return QObject::eventFilter(watched, event);
    }

private:
    void fit()
    {
        const QHeaderView* header = m_view->header();
        int others = 0, names = 0;
        for (int c = 0; c < header->count(); ++c) {
            if (header->isSectionHidden(c))
                continue;
            if (m_columns.contains(c))
                ++names;
            else
                others += header->sectionSize(c);
        }
        if (names == 0)
            return;
        const int each = (m_view->viewport()->width() - others) / names;
        for (int c : m_columns) {
            // The first column holds the tree's indentation too.
            const int least =
                readableNameWidth(m_view) + (c == 0 && m_view->rootIsDecorated() ? m_view->indentation() : 0);
            const int width = std::max(least, each);
            if (!header->isSectionHidden(c) && header->sectionSize(c) != width)
                m_view->header()->resizeSection(c, width);
        }
    }

    QTreeView* m_view;
    QList<int> m_columns;
};

} // namespace

int readableNameWidth(const QWidget* widget)
{
    return widget->fontMetrics().averageCharWidth() * kReadableNameChars;
}

void keepNamesReadable(QTreeView* view, const QList<int>& columns)
{
    new NameColumnsFit(view, columns);
}

} // namespace qsw
