// quantscope-cli budget [--params N[,N...]] [PATH] [--memory GiB] [--layer NxK] [--json]:
// effective bits per weight of every format (every scale, zero, index and table counted,
// amortised over an N x K layer) and the memory a model of each parameter count needs.
#include "commands.h"

#include "analysis/budget.h"
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace qscli {
namespace {

// "7B", "13b", "1.5B", "405e9", "70000000000", "350M": a positive parameter count.
std::optional<uint64_t> parseCount(QString s)
{
    s = s.trimmed();
    double mult = 1;
    if (!s.isEmpty()) {
        const QChar last = s.back().toUpper();
        const double m = last == QLatin1Char('K') ? 1e3 : last == QLatin1Char('M') ? 1e6 : last == QLatin1Char('B') || last == QLatin1Char('G') ? 1e9 : last == QLatin1Char('T') ? 1e12 : 0;
        if (m != 0) {
            mult = m;
            s.chop(1);
        }
    }
    bool ok = false;
    const double v = s.toDouble(&ok) * mult;
    if (!ok || !(v >= 1) || v > 1e16)
        return std::nullopt;
    return uint64_t(std::llround(v));
}

std::string countText(uint64_t n)
{
    char buf[32];
    if (n >= 1000000000ull && n % 100000000ull == 0)
        std::snprintf(buf, sizeof buf, "%gB", double(n) / 1e9);
    else if (n >= 1000000ull && n % 100000ull == 0)
        std::snprintf(buf, sizeof buf, "%gM", double(n) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
    return buf;
}

struct CheckpointSummary {
    uint64_t elements = 0;   // logical weights plus every tensor outside them
    uint64_t storedBytes = 0;
    uint64_t weights = 0;
};

CheckpointSummary summarise(const qs::Checkpoint& c)
{
    CheckpointSummary s;
    std::vector<bool> member(c.tensors.size(), false);
    for (const qs::LogicalWeight& w : c.weights) {
        s.elements += w.elementCount();
        ++s.weights;
        for (const auto& m : w.members)
            if (m.second < member.size())
                member[m.second] = true;
    }
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        s.storedBytes += c.tensors[i].nbytes;
        if (!member[i])
            s.elements += c.tensors[i].elementCount();
    }
    return s;
}

} // namespace

int runBudget(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QCoreApplication::translate("budget",
        "Effective bits per weight of every format and the memory a model needs in each."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("PATH"), QCoreApplication::translate("budget",
        "Optional checkpoint: its parameter count replaces the defaults and its own bits per weight are shown."),
        QStringLiteral("[PATH]"));
    const QCommandLineOption params(QStringLiteral("params"), QCoreApplication::translate("budget",
        "Parameter counts, comma separated (7B, 1.5B, 350M, 405e9). Default: 1B,7B,13B,70B,405B."), QStringLiteral("N"));
    const QCommandLineOption memory(QStringLiteral("memory"), QCoreApplication::translate("budget",
        "Memory in GiB: mark which sizes fit."), QStringLiteral("GiB"));
    const QCommandLineOption layer(QStringLiteral("layer"), QCoreApplication::translate("budget",
        "Layer shape N x K the per-layer costs (g_idx, tables) are amortised over. Default: 4096x4096."), QStringLiteral("NxK"));
    const QCommandLineOption json(QStringLiteral("json"), QCoreApplication::translate("budget", "Print JSON."));
    p.addOptions({params, memory, layer, json});
    if (!p.parse(args)) {
        std::fprintf(stderr, "quantscope-cli budget: %s\n", qPrintable(p.errorText()));
        return 2;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(p.helpText()), stdout);
        return 0;
    }
    const QStringList pos = p.positionalArguments();
    if (pos.size() > 1) {
        std::fprintf(stderr, "quantscope-cli budget: at most one PATH\n");
        return 2;
    }

    std::vector<uint64_t> counts;
    if (p.isSet(params)) {
        for (const QString& s : p.value(params).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const auto n = parseCount(s);
            if (!n) {
                std::fprintf(stderr, "quantscope-cli budget: bad parameter count '%s'\n", qPrintable(s));
                return 2;
            }
            counts.push_back(*n);
        }
        if (counts.empty()) {
            std::fprintf(stderr, "quantscope-cli budget: --params needs at least one count\n");
            return 2;
        }
    }
    std::optional<double> memGiB;
    if (p.isSet(memory)) {
        bool ok = false;
        const double m = p.value(memory).toDouble(&ok);
        if (!ok || !(m > 0) || !std::isfinite(m)) {
            std::fprintf(stderr, "quantscope-cli budget: --memory needs a positive number of GiB\n");
            return 2;
        }
        memGiB = m;
    }
    uint64_t layerN = 4096, layerK = 4096;
    if (p.isSet(layer)) {
        const QStringList nk = p.value(layer).toLower().split(QLatin1Char('x'));
        bool okN = false, okK = false;
        if (nk.size() == 2) {
            layerN = nk[0].toULongLong(&okN);
            layerK = nk[1].toULongLong(&okK);
        }
        if (!okN || !okK || layerN == 0 || layerK == 0 || layerN > (1ull << 32) || layerK > (1ull << 32)) {
            std::fprintf(stderr, "quantscope-cli budget: --layer needs N x K, e.g. 4096x11008\n");
            return 2;
        }
    }

    std::optional<CheckpointSummary> ckpt;
    if (!pos.isEmpty()) {
        const auto c = qs::openCheckpoint(pos.first().toStdString());
        ckpt = summarise(*c);
        if (!p.isSet(params))
            counts = {std::max<uint64_t>(ckpt->elements, 1)};
    }
    if (counts.empty())
        counts = qs::budgetDefaultParamCounts();

    // One table per parameter count, same format order.
    std::vector<std::vector<qs::BudgetRow>> tables;
    for (uint64_t n : counts)
        tables.push_back(qs::budgetTable(n, memGiB, layerN, layerK));

    if (p.isSet(json)) {
        QJsonObject root;
        root[QStringLiteral("layer")] = QJsonArray{qint64(layerN), qint64(layerK)};
        QJsonArray pc;
        for (uint64_t n : counts) pc.append(qint64(n));
        root[QStringLiteral("params")] = pc;
        if (memGiB)
            root[QStringLiteral("memory_gib")] = *memGiB;
        if (ckpt) {
            QJsonObject c;
            c[QStringLiteral("path")] = pos.first();
            c[QStringLiteral("elements")] = qint64(ckpt->elements);
            c[QStringLiteral("stored_bytes")] = qint64(ckpt->storedBytes);
            c[QStringLiteral("weights")] = qint64(ckpt->weights);
            c[QStringLiteral("bpw")] = ckpt->elements ? double(ckpt->storedBytes) * 8.0 / double(ckpt->elements) : 0.0;
            root[QStringLiteral("checkpoint")] = c;
        }
        QJsonArray formats;
        for (size_t f = 0; f < tables.front().size(); ++f) {
            const qs::BudgetRow& r0 = tables.front()[f];
            QJsonObject o;
            o[QStringLiteral("id")] = QString::fromStdString(r0.format.id);
            o[QStringLiteral("bpw")] = r0.bitsPerWeight;
            o[QStringLiteral("asymptotic_bpw")] = qs::budgetAsymptoticBits(r0.format);
            o[QStringLiteral("breakdown")] = QString::fromStdString(qs::budgetBreakdown(r0.format, layerN, layerK));
            QJsonArray sizes;
            for (size_t t = 0; t < tables.size(); ++t) {
                const qs::BudgetRow& r = tables[t][f];
                QJsonObject s;
                s[QStringLiteral("params")] = qint64(counts[t]);
                s[QStringLiteral("bytes")] = r.bytes;
                s[QStringLiteral("gb")] = r.gb;
                s[QStringLiteral("gib")] = r.gib;
                if (r.fits)
                    s[QStringLiteral("fits")] = *r.fits;
                sizes.append(s);
            }
            o[QStringLiteral("sizes")] = sizes;
            formats.append(o);
        }
        root[QStringLiteral("formats")] = formats;
        std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }

    if (ckpt)
        std::printf("%s: %llu elements in %llu bytes = %.4f bits per weight (%llu logical weights)\n\n",
                    qPrintable(pos.first()), static_cast<unsigned long long>(ckpt->elements),
                    static_cast<unsigned long long>(ckpt->storedBytes),
                    ckpt->elements ? double(ckpt->storedBytes) * 8.0 / double(ckpt->elements) : 0.0,
                    static_cast<unsigned long long>(ckpt->weights));
    std::string fitNote;
    if (memGiB) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " (* = fits in %g GiB)", *memGiB);
        fitNote = buf;
    }
    std::printf("Bits per weight amortised over a %llu x %llu layer; sizes as GB / GiB%s.\n\n",
                static_cast<unsigned long long>(layerN), static_cast<unsigned long long>(layerK), fitNote.c_str());
    std::printf("%-20s %9s", "format", "bpw");
    for (uint64_t n : counts) std::printf(" %20s", countText(n).c_str());
    std::printf("\n");
    for (size_t f = 0; f < tables.front().size(); ++f) {
        const qs::BudgetRow& r0 = tables.front()[f];
        std::printf("%-20s %9.4f", r0.format.id.c_str(), r0.bitsPerWeight);
        for (size_t t = 0; t < tables.size(); ++t) {
            const qs::BudgetRow& r = tables[t][f];
            char cell[64];
            std::snprintf(cell, sizeof cell, "%.2f / %.2f%s", r.gb, r.gib, r.fits ? (*r.fits ? " *" : "  ") : "");
            std::printf(" %20s", cell);
        }
        std::printf("\n");
    }
    return 0;
}

} // namespace qscli
