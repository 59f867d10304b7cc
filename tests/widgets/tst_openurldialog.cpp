// File > Open URL...: what the dialog makes of what is typed (a hub repository id becomes an
// hf:// path; URLs and local paths stay as typed), and the window offers the action.
#include "mainwindow.h"
#include "openurldialog.h"

#include <QAction>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

using qsw::OpenUrlDialog;

class TestOpenUrlDialog : public QObject {
    Q_OBJECT
private slots:
    void normalized_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("path");
        QTest::newRow("repo id") << "TheBloke/Llama-2-7B-GPTQ"
                                 << "hf://TheBloke/Llama-2-7B-GPTQ";
        QTest::newRow("repo id, revision, spaces") << "  org/repo@v1.0 "
                                                   << "hf://org/repo@v1.0";
        QTest::newRow("repo id with a file") << "org/repo/model.safetensors"
                                             << "hf://org/repo/model.safetensors";
        QTest::newRow("hub page") << "https://huggingface.co/org/repo"
                                  << "hf://org/repo";
        QTest::newRow("hub file link") << "https://huggingface.co/org/repo/resolve/main/a.gguf"
                                       << "https://huggingface.co/org/repo/resolve/main/a.gguf";
        QTest::newRow("hf path") << "hf://org/repo"
                                 << "hf://org/repo";
        QTest::newRow("url") << "http://127.0.0.1:8080/x/model.gguf"
                             << "http://127.0.0.1:8080/x/model.gguf";
        QTest::newRow("absolute local path") << "/models/org/repo"
                                             << "/models/org/repo";
        QTest::newRow("relative local path") << "./models/repo"
                                             << "./models/repo";
        QTest::newRow("empty") << "   "
                               << "";
    }
    void normalized()
    {
        QFETCH(QString, typed);
        QFETCH(QString, path);
        QCOMPARE(OpenUrlDialog::normalized(typed), path);
    }

    // "List Files" only for a hub path; the dialog's path is what was typed, normalized.
    void listOnlyForHubPaths()
    {
        OpenUrlDialog d;
        auto* edit = d.findChild<QLineEdit*>(QStringLiteral("urlEdit"));
        auto* list = d.findChild<QPushButton*>(QStringLiteral("listFiles"));
        QVERIFY(edit && list);
        QVERIFY(!list->isEnabled());
        QTest::keyClicks(edit, QStringLiteral("org/repo"));
        QVERIFY(list->isEnabled());
        QCOMPARE(d.path(), QStringLiteral("hf://org/repo"));
        edit->clear();
        QTest::keyClicks(edit, QStringLiteral("https://example.org/m.gguf"));
        QVERIFY(!list->isEnabled());
    }

    void windowOffersOpenUrl()
    {
        qsw::MainWindow w(qsw::MainWindow::Options{false});
        auto* action = w.findChild<QAction*>(QStringLiteral("openUrl"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    }
};

QTEST_MAIN(TestOpenUrlDialog)
#include "tst_openurldialog.moc"
