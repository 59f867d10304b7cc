// Effective bits and memory budgets: hand arithmetic, and the byte counts of real stored
// tensors in the fixtures.
#include "analysis/budget.h"
#include "formats/layoutspec.h"
#include "container/checkpoint.h"
#include "base/error.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTest>

#include <cmath>

namespace {

qs::BudgetFormat fmt(const char* id)
{
    const qs::BudgetFormat* f = qs::budgetFormat(id);
    return f ? *f : qs::BudgetFormat{};
}

} // namespace

class TestBudget : public QObject {
    Q_OBJECT
private slots:
    void theory_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("asymptotic");
        QTest::addColumn<double>("at4096");
        QTest::addRow("q4_0") << "gguf-q4_0" << 4.5 << 4.5;
        QTest::addRow("q4_k") << "gguf-q4_k" << 4.5 << 4.5;
        QTest::addRow("q6_k") << "gguf-q6_k" << 6.5625 << 6.5625;
        QTest::addRow("q2_k") << "gguf-q2_k" << 2.625 << 2.625;
        QTest::addRow("iq4_xs") << "gguf-iq4_xs" << 4.25 << 4.25;
        QTest::addRow("q8_0") << "gguf-q8_0" << 8.5 << 8.5;
        // GPTQ-4 g128: 4 code + 4/128 packed zero + 16/128 f16 scale; g_idx 32 bits over N = 4096.
        QTest::addRow("gptq-4-g128") << "gptq-4-g128" << 4.15625 << 4.15625 + 32.0 / 4096;
        QTest::addRow("gptq-3-channel") << "gptq-3-channel" << 3.0 << 3.0 + 3.0 / 4096 + 16.0 / 4096 + 32.0 / 4096;
        QTest::addRow("awq-4-g128") << "awq-4-g128" << 4.15625 << 4.15625;
        QTest::addRow("nf4") << "bnb-nf4" << 4.5 << 4.5 + 64.0 * 8 / (4096.0 * 4096);
        // Nested: u8 absmax per 64 + f32 per 256 blocks, plus the 256-entry map and quant_map.
        QTest::addRow("nf4-nested") << "bnb-nf4-nested" << 4.0 + 0.125 + 32.0 / 16384
                                    << 4.0 + 0.125 + 32.0 / 16384 + (64.0 + 1024.0) * 8 / (4096.0 * 4096);
        QTest::addRow("mlx-4-g64") << "mlx-4-g64" << 4.5 << 4.5;
        QTest::addRow("mlx-3-g32") << "mlx-3-g32" << 4.0 << 4.0;
        QTest::addRow("ct-w4-g128-sym") << "ct-w4-g128-sym" << 4.125 << 4.125 + 128.0 / (4096.0 * 4096);
        QTest::addRow("ct-w4-g32-asym") << "ct-w4-g32-asym" << 4.625 << 4.625 + 128.0 / (4096.0 * 4096);
        QTest::addRow("int8") << "bnb-int8" << 8.0 << 8.0 + 32.0 / 4096 + 8.0 / (4096.0 * 4096);
        QTest::addRow("f16") << "f16" << 16.0 << 16.0;
    }
    void theory()
    {
        QFETCH(QString, id);
        QFETCH(double, asymptotic);
        QFETCH(double, at4096);
        const qs::BudgetFormat* f = qs::budgetFormat(id.toStdString());
        QVERIFY(f);
        QCOMPARE(qs::asymptoticBitsPerWeight(*f), asymptotic);
        QCOMPARE(qs::budgetBitsPerWeight(*f, 4096, 4096), at4096);
    }

    void everyGgufTypeIsListed()
    {
        int gguf = 0;
        for (const qs::BudgetFormat& f : qs::budgetFormats())
            gguf += f.info->family == qs::FormatFamily::Gguf;
        // 43 ids minus F32/F16/BF16/I8/I16/I32/I64/F64 (listed as floats or not weights),
        // Q8_1/Q8_K (intermediates) and the 8 removed ids.
        QCOMPARE(gguf, 43 - 8 - 2 - 8);
        QVERIFY(qs::budgetFormat("gguf-tq1_0"));
        QVERIFY(!qs::budgetFormat("gguf-q8_k"));
    }

    // Every row names the format it stores (views colour rows by it, not by the row name).
    void everyRowNamesItsFormat_data()
    {
        QTest::addColumn<QString>("row");
        QTest::addColumn<QString>("format");
        QTest::addRow("f16") << "f16"
                             << "f16";
        QTest::addRow("q4_k") << "gguf-q4_k"
                              << "gguf-q4_k";
        QTest::addRow("gptq") << "gptq-4-g128"
                              << "gptq-v1";
        QTest::addRow("awq") << "awq-4-g32"
                             << "awq-gemm";
        QTest::addRow("ct") << "ct-w8-channel-sym"
                            << "compressed-tensors";
        QTest::addRow("mlx") << "mlx-5-g64"
                             << "mlx-affine";
        QTest::addRow("nf4 nested") << "bnb-nf4-nested"
                                    << "bnb-nf4";
        QTest::addRow("fp4") << "bnb-fp4"
                             << "bnb-fp4";
        QTest::addRow("int8") << "bnb-int8"
                              << "bnb-int8";
    }
    void everyRowNamesItsFormat()
    {
        QFETCH(QString, row);
        QFETCH(QString, format);
        const qs::BudgetFormat* f = qs::budgetFormat(row.toStdString());
        QVERIFY(f && f->info);
        QCOMPARE(QString::fromStdString(f->info->id), format);
        for (const qs::BudgetFormat& r : qs::budgetFormats())
            QVERIFY2(r.info, r.id.c_str());
    }

    void memoryTable()
    {
        QCOMPARE(
            qs::budgetDefaultParamCounts(),
            (std::vector<uint64_t>{1000000000ull, 7000000000ull, 13000000000ull, 70000000000ull, 405000000000ull}));
        const auto rows = qs::budgetTable(7000000000ull, 4.0);
        const qs::BudgetRow* q4k = nullptr;
        const qs::BudgetRow* f16 = nullptr;
        for (const auto& r : rows) {
            if (r.format.id == "gguf-q4_k")
                q4k = &r;
            if (r.format.id == "f16")
                f16 = &r;
        }
        QVERIFY(q4k && f16);
        QCOMPARE(q4k->bytes, 7e9 * 4.5 / 8); // 3.9375e9 bytes
        QCOMPARE(q4k->gb, 3.9375);
        QCOMPARE(q4k->gib, 3.9375e9 / 1073741824.0); // 3.667 GiB
        QCOMPARE(q4k->fits, std::optional<bool>(true));
        QCOMPARE(f16->gib, 14e9 / 1073741824.0);
        QCOMPARE(f16->fits, std::optional<bool>(false));
        QVERIFY(!qs::budgetTable(1000).front().fits.has_value());
        // A layer too narrow for 256-weight blocks leaves the k-quants out.
        bool hasK = false;
        for (const auto& r : qs::budgetTable(1000, std::nullopt, 64, 64))
            hasK |= r.format.id == "gguf-q4_k";
        QVERIFY(!hasK);
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::budgetStoredBytes(fmt("gguf-q4_k"), 64, 64));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::budgetStoredBytes(fmt("mlx-4-g64"), 64, 96));
    }

    // The spec's refusals are the table's: AutoAWQ packs N in words of 8 codes and asserts
    // N % 8 == 0, so a layer of 4100 outputs has no AWQ layout to price (a padded word the
    // tool never writes was counted before).
    void shapesTheSpecRefusesAreLeftOut()
    {
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::budgetStoredBytes(fmt("awq-4-g128"), 4100, 4096));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::budgetStoredBytes(fmt("awq-4-g128"), 4096, 4000));
        QCOMPARE(qs::budgetStoredBytes(fmt("awq-4-g128"), 4104, 4096),
                 uint64_t(4096 * 4104 / 2 + 32 * 4104 / 2 + 32 * 4104 * 2));
        for (const auto& r : qs::budgetTable(1000, std::nullopt, 4100, 4096))
            QVERIFY2(r.format.info->id != "awq-gemm", r.format.id.c_str());
    }

    // The asymptotic cost is the limit of every row's cost as the layer grows: at 2^20 x 2^20
    // the per-row and per-layer constants are below 1e-4 bits, and they only add.
    void asymptoticIsTheLimit()
    {
        const uint64_t big = uint64_t(1) << 20;
        for (const qs::BudgetFormat& f : qs::budgetFormats()) {
            const double limit = qs::asymptoticBitsPerWeight(f), at = qs::budgetBitsPerWeight(f, big, big);
            QVERIFY2(limit > 0 && limit <= at && at - limit < 1e-4, f.id.c_str());
        }
    }

    // The table lists the families' rows in FormatFamily order, each family's together (the
    // CLI's table and the view's family filter read them in this order).
    void rowsInFamilyOrder()
    {
        int last = -1;
        for (const qs::BudgetFormat& f : qs::budgetFormats()) {
            QVERIFY2(int(f.info->family) >= last, f.id.c_str());
            last = int(f.info->family);
        }
        QCOMPARE(qs::budgetFormats().front().id, std::string("f32"));
        QCOMPARE(qs::budgetFormats().back().id, std::string("aqlm-2x8-g8")); // AQLM is listed last
    }

    // The layout report compares its count with the row of the same layout, bits and group.
    void reportedRows()
    {
        const auto row = [](const char* spec, int bits, uint64_t group, uint64_t k = 4096) {
            const qs::BudgetFormat* f =
                qs::reportedBudgetFormat(*qs::findLayoutSpec(spec), qs::LayoutParams{k, 4096, bits, group});
            return f ? f->id : std::string();
        };
        QCOMPARE(row("gptq-v1", 4, 128), std::string("gptq-4-g128"));
        QCOMPARE(row("gptq-v2", 4, 128), std::string("gptq-4-g128"));
        QCOMPARE(row("awq-gemm", 4, 128), std::string("awq-4-g128"));
        QCOMPARE(row("gptq-marlin", 4, 128), std::string());
        QCOMPARE(row("gptq-v1", 4, 0), std::string("gptq-4-channel"));
        QCOMPARE(row("gptq-v1", 4, 8192), std::string("gptq-4-channel")); // a group spanning K
        QCOMPARE(row("gptq-v1", 5, 128), std::string()); // no 5-bit row
        QCOMPARE(row("awq-gemm", 4, 0), std::string()); // no per-channel AWQ row
        QCOMPARE(row("gguf-q4_k", 4, 0), std::string("gguf-q4_k"));
        QCOMPARE(row("gguf-f16", 16, 0), std::string());
    }

    void breakdownNamesTheParts()
    {
        const std::string s = qs::budgetBreakdown(fmt("gptq-4-g128"), 4096, 4096);
        QCOMPARE(QString::fromStdString(s), QStringLiteral("4 code + 0.125 scale + 0.03125 zero + 0.0078125 g_idx"));
    }

    void matchesStoredFixtureBytes_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("scaleDtype"); // the fixture's, when not the spec's F16
        QTest::addColumn<QStringList>("suffixes");
        const QStringList gptq = {"qweight", "qzeros", "scales", "g_idx"};
        const QStringList awq = {"qweight", "qzeros", "scales"};
        const QStringList ct = {"weight_packed", "weight_scale", "weight_shape", "weight_zero_point"};
        const QStringList bnb = {"weight", "weight.absmax", "weight.quant_map", "weight.nested_absmax",
                                 "weight.nested_quant_map"};
        QTest::addRow("gptq w4 g128") << "gptq-w4-g128-sym"
                                      << "model.layers.0.mlp.down_proj"
                                      << "gptq-4-g128" << QString() << gptq;
        QTest::addRow("gptq w3 g32 q_proj") << "gptq-w3-g32-asym"
                                            << "model.layers.0.self_attn.q_proj"
                                            << "gptq-3-g32" << QString() << gptq;
        QTest::addRow("gptq w2 g32") << "gptq-w2-g32-asym"
                                     << "model.layers.0.mlp.down_proj"
                                     << "gptq-2-g32" << QString() << gptq;
        QTest::addRow("gptq w8 g128") << "gptq-w8-g128-sym"
                                      << "model.layers.0.mlp.down_proj"
                                      << "gptq-8-g128" << QString() << gptq;
        QTest::addRow("awq g32") << "awq-gemm-w4-g32"
                                 << "model.layers.0.mlp.down_proj"
                                 << "awq-4-g32" << QString() << awq;
        QTest::addRow("ct g32 asym gate") << "ct-pack-w4a16-g32-asym"
                                          << "model.layers.0.self_attn.q_proj"
                                          << "ct-w4-g32-asym"
                                          << "F32" << ct;
        QTest::addRow("ct channel asym gate") << "ct-pack-w4a16-channel-asym"
                                              << "model.layers.0.mlp.gate_proj"
                                              << "ct-w4-channel-asym"
                                              << "F32" << ct;
        QTest::addRow("ct w8 channel") << "ct-pack-w8a16-channel-sym"
                                       << "model.layers.0.mlp.gate_proj"
                                       << "ct-w8-channel-sym"
                                       << "F32" << ct;
        QTest::addRow("nf4") << "bnb-nf4"
                             << "model.layers.0.mlp.gate_proj"
                             << "bnb-nf4" << QString() << bnb;
        QTest::addRow("nf4 nested") << "bnb-nf4-doublequant"
                                    << "model.layers.0.mlp.down_proj"
                                    << "bnb-nf4-nested" << QString() << bnb;
    }
    void matchesStoredFixtureBytes()
    {
        QFETCH(QString, variant);
        QFETCH(QString, module);
        QFETCH(QString, format);
        QFETCH(QString, scaleDtype);
        QFETCH(QStringList, suffixes);
        const auto ck = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/") + variant + QStringLiteral("/model.safetensors"))
                .toStdString());
        uint64_t stored = 0;
        for (const QString& s : suffixes)
            if (const qs::TensorEntry* t = ck->find((module + QLatin1Char('.') + s).toStdString()))
                stored += t->nbytes;
        const struct {
            const char* m;
            uint64_t n, k;
        } shapes[] = {{"model.layers.0.mlp.down_proj", 128, 256},
                      {"model.layers.0.self_attn.q_proj", 64, 64},
                      {"model.layers.0.mlp.gate_proj", 172, 64}};
        uint64_t n = 0, k = 0;
        for (const auto& s : shapes)
            if (module == QLatin1String(s.m)) {
                n = s.n;
                k = s.k;
            }
        qs::BudgetFormat f = fmt(format.toLatin1().constData());
        if (f.id.empty()) { // a variant the table does not list (ct channel asym): the asymmetric rows' tensors
            f = fmt("ct-w4-g32-asym");
            f.id = format.toStdString();
            f.groupSize = 0;
        }
        for (qs::BudgetTensor& t : f.tensors)
            if (t.part == qs::BudgetPart::Scales && !scaleDtype.isEmpty())
                t.dtype = scaleDtype.toStdString();
        QCOMPARE(qs::budgetStoredBytes(f, n, k), stored);
    }

    void matchesStoredGgufBytes_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<QString>("format");
        for (const char* src : {"synthetic", "synthetic4096", "real"})
            for (const char* t : {"q4_0",  "q4_1",    "q5_0",  "q5_1",   "q8_0",   "q2_k",    "q3_k",
                                  "q4_k",  "q5_k",    "q6_k",  "iq4_nl", "iq4_xs", "iq2_xxs", "iq2_xs",
                                  "iq2_s", "iq3_xxs", "iq3_s", "iq1_s",  "iq1_m",  "tq1_0",   "tq2_0"})
                QTest::addRow("%s.%s", src, t) << QStringLiteral("%1.%2").arg(QLatin1String(src), QLatin1String(t))
                                               << QStringLiteral("gguf-%1").arg(QLatin1String(t));
    }
    void matchesStoredGgufBytes()
    {
        QFETCH(QString, tensor);
        QFETCH(QString, format);
        static const auto ck =
            qs::openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        const qs::TensorEntry* t = ck->find(tensor.toStdString());
        QVERIFY(t);
        QCOMPARE(t->shape.size(), size_t(2));
        QCOMPARE(qs::budgetStoredBytes(fmt(format.toLatin1().constData()), t->shape[0], t->shape[1]), t->nbytes);
    }
};

QTEST_GUILESS_MAIN(TestBudget)
#include "tst_budget.moc"
