#pragma once
// The details pane: everything detection says about one logical weight (members, format
// parameters, evidence, notes), or a summary of the checkpoint when nothing is selected.
#include "snapshot.h"
#include "theme.h"

#include <QTextBrowser>

namespace qsw {

class Inspector : public QTextBrowser {
    Q_OBJECT
public:
    explicit Inspector(QWidget* parent = nullptr);

    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    void showWeight(int weight); // -1: the checkpoint summary
    void setTheme(const Theme& theme);
    int weight() const { return m_weight; }

private:
    void render();
    QString summaryHtml() const;
    QString weightHtml(const WeightRow& w) const;

    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    int m_weight = -1;
    Theme m_theme;
};

} // namespace qsw
