#include "openurldialog.h"

#include "base/error.h"
#include "numbers.h"
#include "remote/url.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace qsw {

OpenUrlDialog::OpenUrlDialog(QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("openUrlDialog"));
    setWindowTitle(tr("Open URL"));
    auto* layout = new QVBoxLayout(this);
    auto* hint = new QLabel(tr("An http(s) URL of a .gguf or .safetensors file or a *.safetensors.index.json, or a "
                               "Hugging Face repository (ORG/REPO, hf://ORG/REPO@REVISION). Only the headers are read "
                               "now; a weight's bytes are fetched when a view needs them."),
                            this);
    hint->setWordWrap(true);
    layout->addWidget(hint);
    auto* row = new QHBoxLayout;
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("urlEdit"));
    m_edit->setPlaceholderText(tr("https://… or ORG/REPO"));
    m_edit->setMinimumWidth(480);
    row->addWidget(m_edit, 1);
    m_list = new QPushButton(tr("&List Files"), this);
    m_list->setObjectName(QStringLiteral("listFiles"));
    m_list->setToolTip(tr("List the repository's files to pick one (a repository opens as a folder does)"));
    row->addWidget(m_list);
    layout->addLayout(row);
    m_files = new QListWidget(this);
    m_files->setObjectName(QStringLiteral("hubFiles"));
    layout->addWidget(m_files, 1);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!path().isEmpty())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QPushButton::clicked, this, &OpenUrlDialog::listFiles);
    m_watcher = new QFutureWatcher<Listing>(this);
    connect(m_watcher, &QFutureWatcher<Listing>::finished, this, &OpenUrlDialog::listed);
    connect(m_files, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && !m_listedRepo.isEmpty())
            m_edit->setText(m_listedRepo + QLatin1Char('/') + m_files->item(row)->data(Qt::UserRole).toString());
    });
    connect(m_files, &QListWidget::itemActivated, this, [this] { accept(); });
    connect(m_edit, &QLineEdit::textEdited, this,
            [this](const QString& text) { m_list->setEnabled(qs::remote::isHubPath(normalized(text).toStdString())); });
    m_list->setEnabled(false);
}

OpenUrlDialog::~OpenUrlDialog()
{
    // A listing still running finishes on its own (its requests time out); its result is dropped.
    m_watcher->disconnect(this);
}

QString OpenUrlDialog::normalized(const QString& typed)
{
    QString t = typed.trimmed();
    const QString site = QStringLiteral("https://huggingface.co/");
    if (t.startsWith(site) && !t.contains(QStringLiteral("/resolve/")) && t.count(QLatin1Char('/')) == 4)
        return QStringLiteral("hf://") + t.mid(site.size());
    // ORG/REPO[...]: not a local path (absolute, relative to here or home).
    if (!t.isEmpty() && !t.contains(QStringLiteral("://")) && t.count(QLatin1Char('/')) >= 1
        && !t.startsWith(QLatin1Char('/')) && !t.startsWith(QLatin1Char('.')) && !t.startsWith(QLatin1Char('~')))
        return QStringLiteral("hf://") + t;
    return t;
}

QString OpenUrlDialog::path() const
{
    return normalized(m_edit->text());
}

void OpenUrlDialog::listFiles()
{
    if (m_watcher->isRunning())
        return;
    const QString repo = path();
    m_files->clear();
    m_listedRepo.clear();
    try {
        // The tree lists paths from the repository's root: picks are named from there.
        const qs::remote::HubPath hub = qs::remote::parseHubPath(repo.toStdString());
        m_pendingRepo = QStringLiteral("hf://") + QString::fromStdString(hub.repo)
            + (hub.revision == "main" ? QString() : QLatin1Char('@') + QString::fromStdString(hub.revision));
    } catch (const qs::Error& e) {
        m_status->setText(QString::fromStdString(e.what()));
        return;
    }
    m_status->setText(tr("Listing %1…").arg(repo));
    m_list->setEnabled(false);
    m_watcher->setFuture(QtConcurrent::run([repo]() -> Listing {
        Listing l;
        try {
            l.files = qs::listHubRepository(repo.toStdString());
        } catch (const qs::Error& e) {
            l.error = QString::fromStdString(e.what());
        }
        return l;
    }));
}

void OpenUrlDialog::listed()
{
    const Listing l = m_watcher->result();
    m_list->setEnabled(true);
    if (!l.error.isEmpty()) {
        m_status->setText(l.error);
        return;
    }
    m_listedRepo = m_pendingRepo;
    for (const qs::HubFile& f : l.files) {
        const QString name = QString::fromStdString(f.path);
        auto* item = new QListWidgetItem(tr("%1  (%2)").arg(name, localBytes(f.size)), m_files);
        item->setData(Qt::UserRole, name);
    }
    m_status->setText(tr("%n file(s); pick one, or open the repository as a folder.", nullptr, int(l.files.size())));
}

} // namespace qsw
