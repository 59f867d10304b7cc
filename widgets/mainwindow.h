#pragma once
#include <QMainWindow>
namespace qsw {
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};
}
