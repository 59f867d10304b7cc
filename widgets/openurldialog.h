#pragma once
// File > Open URL…: an http(s) URL of a checkpoint file, or a Hugging Face repository (ORG/REPO,
// hf://ORG/REPO[@REVISION]) whose files the hub lists to pick from. The listing runs off the GUI
// thread; the dialog only says what to open (MainWindow opens it).
#include <QDialog>
#include <QFutureWatcher>

#include <vector>

#include "container/remotefolder.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace qsw {

class OpenUrlDialog : public QDialog {
    Q_OBJECT
public:
    explicit OpenUrlDialog(QWidget* parent = nullptr);
    ~OpenUrlDialog() override;
    // What to open: the URL, or hf://ORG/REPO[@REVISION][/FILE]; empty when nothing was entered.
    QString path() const;
    // "ORG/REPO" and "https://huggingface.co/ORG/REPO" as hf:// paths; anything else as typed.
    static QString normalized(const QString& typed);

private:
    void listFiles();
    void listed();

    QLineEdit* m_edit = nullptr;
    QPushButton* m_list = nullptr;
    QListWidget* m_files = nullptr;
    QLabel* m_status = nullptr;
    QString m_listedRepo, m_pendingRepo;
    struct Listing {
        std::vector<qs::HubFile> files;
        QString error;
    };
    QFutureWatcher<Listing>* m_watcher = nullptr;
};

} // namespace qsw
