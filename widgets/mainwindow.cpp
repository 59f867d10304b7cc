#include "mainwindow.h"
namespace qsw {
MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) { setWindowTitle(tr("Quantscope")); }
}
