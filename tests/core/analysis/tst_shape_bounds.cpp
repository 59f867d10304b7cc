// Sizes from a file (issue 29, memory safety): shapes read from JSON and side tensors (a
// bitsandbytes quant_state, a compressed-tensors weight_shape) are checked arithmetic against
// the bytes present when the checkpoint opens. A shape whose element count overflows, that
// claims more elements than its bytes can hold, or that disagrees with the stored data is
// refused: the weight is listed, not decoded, with a note saying why, and verify reports it.
// What the analyses derive from a shape (the default activations, the requantized copy) is
// checked the same way, and a weight whose values are NaN or Inf requantizes without
// undefined behaviour. The inputs are tests/corpus/ entries (tests/support/make_shape_corpus.py).
#include "analysis/stats.h"
#include "analysis/verify.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/affine/quantize_affine.h"
#include "formats/dequant.h"
#include "formats/layoutspec.h"
#include "formats/wordmap.h"
#include "formats/detect.h"
#include "formats/opencheckpoint.h"
#include "formats/target.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QTest>

#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <memory>
#include <thread>

using namespace qs;

namespace {

QString corpus(const char* entry)
{
    return QStringLiteral(QT_TESTCASE_SOURCEDIR "/corpus/") + QLatin1String(entry);
}

// Runs f on a thread of its own; false when it has not returned within `seconds` (the thread is
// left behind: the suite fails and exits, which ends it). What f touches lives in a shared_ptr
// it holds, never on the caller's stack, which a thread left behind would outlive.
template <typename F>
bool finishesWithin(int seconds, F&& f)
{
    auto task = std::make_shared<std::packaged_task<void()>>(std::forward<F>(f));
    std::future<void> done = task->get_future();
    std::thread([task] { (*task)(); }).detach();
    if (done.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready)
        return false;
    done.get(); // rethrows what f threw
    return true;
}

bool hasNoteWith(const LogicalWeight& w, const std::string& text)
{
    for (const Message& m : w.notes)
        if (m.text().find(text) != std::string::npos)
            return true;
    return false;
}

std::string allNotes(const LogicalWeight& w)
{
    std::string s;
    for (const Message& m : w.notes)
        s += m.text() + "\n";
    return s;
}

} // namespace

class TestShapeBounds : public QObject {
    Q_OBJECT
private slots:
    // Shapes whose element count wraps 64 bits, or claims far more elements than the few bytes
    // stored: refused when the checkpoint opens, in well under a second, never looped over.
    void absurdShapesRefusedAtOpen_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("claimed"); // the shape as the file says it, named by the note
        QTest::addRow("ct [128, 2^62+256]")
            << corpus("ct-weight-shape-2p62") << QStringLiteral("[128, 4611686018427388160]");
        QTest::addRow("bnb [128, 2^62]") << corpus("bnb-shape-2p62") << QStringLiteral("[128, 4611686018427387904]");
        QTest::addRow("ct [2^32, 2^32]") << corpus("ct-weight-shape-2p32-squared")
                                         << QStringLiteral("[4294967296, 4294967296]");
        QTest::addRow("bnb [2^32, 2^32]")
            << corpus("bnb-shape-2p32-squared") << QStringLiteral("[4294967296, 4294967296]");
        QTest::addRow("bnb [2^20, 2^20]") << corpus("bnb-shape-beyond-bytes") << QStringLiteral("[1048576, 1048576]");
    }
    void absurdShapesRefusedAtOpen()
    {
        QFETCH(QString, entry);
        QFETCH(QString, claimed);
        QElapsedTimer clock;
        clock.start();
        const auto ckpt = openCheckpoint(entry.toStdString());
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        const LogicalWeight* w = ckpt->findWeight("m");
        QVERIFY(w);
        QVERIFY2(!canDequantize(w->format), w->format.c_str());
        QVERIFY2(hasNoteWith(*w, "shape refused") && hasNoteWith(*w, claimed.toStdString()), allNotes(*w).c_str());
        // What every consumer sees is a size it can compute and allocate.
        QVERIFY(checkedProduct(w->shape).has_value());
        QVERIFY(w->elementCount() <= 64 * std::max<uint64_t>(w->storedBytes, 1024));
        // dequantize and verify say what is wrong, naming the weight.
        try {
            dequantizeWeight(*ckpt, *w, SimdPath::Scalar, 1);
            QFAIL("dequantized a refused weight");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("'m'") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find(claimed.toStdString()) != std::string::npos, e.what());
        }
        const VerifyReport rep = verifyCheckpoint(*ckpt);
        bool named = false;
        for (const auto& f : rep.findings)
            named |= f.weight == "m" && !f.warning && f.message.text().find(claimed.toStdString()) != std::string::npos;
        QVERIFY(named);
    }

    // Shapes that fit their bytes' size but not the stored data: dequant wrote (2, 3), (128,)
    // and (0, 64) arrays of a 64- or 8192-element weight. Refused, and verify still reports them.
    void disagreeingShapesRefused_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("claimed");
        QTest::addRow("bnb [2, 3]") << corpus("bnb-shape-disagrees") << QStringLiteral("[2, 3]");
        QTest::addRow("bnb [128]") << corpus("bnb-shape-1d-disagrees") << QStringLiteral("[128]");
        QTest::addRow("ct [0, 64]") << corpus("ct-weight-shape-no-rows") << QStringLiteral("[0, 64]");
    }
    void disagreeingShapesRefused()
    {
        QFETCH(QString, entry);
        QFETCH(QString, claimed);
        const auto ckpt = openCheckpoint(entry.toStdString());
        const LogicalWeight* w = ckpt->findWeight("m");
        QVERIFY(w);
        QVERIFY2(!canDequantize(w->format), (w->format + " " + shapeText(w->shape)).c_str());
        QVERIFY2(hasNoteWith(*w, "shape refused") && hasNoteWith(*w, claimed.toStdString()), allNotes(*w).c_str());
        QVERIFY_THROWS_EXCEPTION(Error, dequantizeWeight(*ckpt, *w, SimdPath::Scalar, 1));
        const VerifyReport rep = verifyCheckpoint(*ckpt);
        bool named = false;
        for (const auto& f : rep.findings)
            named |= f.weight == "m" && !f.warning;
        QVERIFY(named);
    }

    // A 1-D qzeros beside a GPTQ qweight: detection read its second dimension (past the shape
    // vector: a heap-buffer-overflow under ASan). Now the zeros are not read, and a note says so.
    void gptqOneDimensionalQzeros()
    {
        const auto ckpt = openCheckpoint(corpus("gptq-qzeros-1d").toStdString());
        const LogicalWeight* w = ckpt->findWeight("m");
        QVERIFY(w);
        QCOMPARE(w->shape, (std::vector<uint64_t>{64, 64}));
        QVERIFY2(hasNoteWith(*w, "qzeros [8]"), allNotes(*w).c_str());
    }

    // The default activations are [tokens, K]: a K near 2^62 made tokens * K wrap to 4096 floats,
    // then the outlier channels were scaled past them.
    void defaultActivationsCheckTheirSize()
    {
        QVERIFY_THROWS_EXCEPTION(Error, defaultActivations(16, (uint64_t(1) << 62) + 256, 1, 4));
        QVERIFY_THROWS_EXCEPTION(Error, defaultActivations(uint64_t(1) << 40, uint64_t(1) << 30, 1, 4));
        const std::vector<float> x = defaultActivations(16, 64, 1, 4);
        QCOMPARE(x.size(), size_t(16 * 64));
    }

    // A weight's element count is the checked product: never a wrapped one.
    void elementCountIsChecked()
    {
        LogicalWeight w;
        w.name = "wrapped";
        w.shape = {uint64_t(1) << 32, uint64_t(1) << 32};
        QVERIFY_THROWS_EXCEPTION(Error, w.elementCount());
        w.shape = {uint64_t(1) << 40, uint64_t(1) << 40, 0};
        QVERIFY_THROWS_EXCEPTION(Error, w.outFeatures());
        w.shape = {3, 5, 7};
        QCOMPARE(w.elementCount(), uint64_t(105));
        QCOMPARE(w.outFeatures(), uint64_t(15));
        QVERIFY(!checkedProduct(std::vector<uint64_t>{uint64_t(1) << 63, 2}));
        QVERIFY(checkedProduct(std::vector<uint64_t>{}) == std::optional<uint64_t>(1));
        QVERIFY_THROWS_EXCEPTION(Error, checkedMul(uint64_t(1) << 32, uint64_t(1) << 32, "what"));
        QCOMPARE(checkedMul(uint64_t(1) << 31, uint64_t(1) << 32, "what"), uint64_t(1) << 63);
    }

    // A weight whose shape was never checked (made by hand, past detection) and far larger than
    // its bytes: every chunk fails, and dequantizeWeight returns the first error at once instead
    // of walking the 2^28 chunks (the runner could not leave its OpenMP loop).
    void hugeDequantStopsAtTheFirstError()
    {
        struct Run {
            std::shared_ptr<const Checkpoint> ckpt;
            LogicalWeight w;
            std::vector<float> out = std::vector<float>(1 << 16);
            std::string message;
        };
        const auto run = std::make_shared<Run>();
        run->ckpt = openCheckpoint(corpus("f16-nan-inf.safetensors").toStdString());
        run->w = run->ckpt->weights.at(0);
        run->w.shape = {uint64_t(1) << 40, 16}; // 2^44 elements over 2 KiB: 2^28 chunks
        QVERIFY2(finishesWithin(10,
                                [run] {
                                    try {
                                        dequantizeWeight(*run->ckpt, run->w, run->out.data(), SimdPath::Scalar, 2);
                                    } catch (const Error& e) {
                                        run->message = e.what();
                                    }
                                }),
                 "dequantizeWeight kept going after its chunks failed");
        QVERIFY2(run->message.find(run->w.name) != std::string::npos, run->message.c_str());
    }

    // The bit map's WordMap runs on the GUI thread: its search for a repeating tile is bounded
    // whatever the shape (a [2^32, 2^32] layout kept it over 60 s), and the
    // layouts of real weights still map.
    void wordMapSearchIsBounded_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("bits");
        for (const char* f : {"bnb-nf4", "compressed-tensors", "gptq-v1", "gguf-q4_k"})
            QTest::addRow("%s", f) << QString::fromLatin1(f) << 4;
    }
    void wordMapSearchIsBounded()
    {
        QFETCH(QString, format);
        QFETCH(int, bits);
        const LayoutSpec* spec = findLayoutSpec(format.toStdString());
        QVERIFY(spec);
        for (const auto& [n, k] : {std::pair<uint64_t, uint64_t>{uint64_t(1) << 32, uint64_t(1) << 32},
                                   {128, (uint64_t(1) << 62) + 256},
                                   {uint64_t(1) << 40, 256}}) {
            const LayoutParams p{k, n, bits, 64};
            QElapsedTimer clock;
            clock.start();
            QVERIFY2(finishesWithin(10,
                                    [spec, p] {
                                        try {
                                            const WordMap map(*spec, p);
                                        } catch (const Error&) {
                                        }
                                    }),
                     qPrintable(QStringLiteral("WordMap of [%1, %2] kept searching").arg(n).arg(k)));
            QVERIFY2(clock.elapsed() < 3000,
                     qPrintable(QStringLiteral("[%1, %2]: %3 ms").arg(n).arg(k).arg(clock.elapsed())));
        }
        // A real large weight still maps, quickly.
        QElapsedTimer clock;
        clock.start();
        const WordMap large(*spec, LayoutParams{uint64_t(1) << 14, uint64_t(1) << 16, bits, 64});
        QVERIFY(large.wordCount() > 0);
        QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    }

    // NaN and Inf reach the affine quantizer (stats --requantize gptq on a weight holding them):
    // it converted NaN to unsigned char (UBSan). Codes stay in range and the result is defined.
    void nonFiniteValuesRequantize_data()
    {
        QTest::addColumn<int>("rule");
        QTest::addColumn<bool>("symmetric");
        for (AffineRule r : {AffineRule::Gptq, AffineRule::Awq, AffineRule::CompressedTensors, AffineRule::Mlx})
            for (bool sym : {false, true})
                QTest::addRow("%s%s", std::string(affineRuleName(r)).c_str(), sym ? " sym" : "") << int(r) << sym;
    }
    void nonFiniteValuesRequantize()
    {
        QFETCH(int, rule);
        QFETCH(bool, symmetric);
        std::vector<float> w(4 * 64);
        for (size_t i = 0; i < w.size(); ++i)
            w[i] = float(int(i % 17) - 8) / 8.0f;
        w[3] = std::numeric_limits<float>::quiet_NaN();
        w[70] = std::numeric_limits<float>::infinity();
        w[140] = -std::numeric_limits<float>::infinity();
        w[141] = std::numeric_limits<float>::quiet_NaN();
        w[200] = std::numeric_limits<float>::infinity();
        w[201] = std::numeric_limits<float>::quiet_NaN();
        AffineOptions o;
        o.rule = AffineRule(rule);
        o.symmetric = symmetric;
        o.groupSize = 32;
        for (int bits : {2, 4, 8}) {
            o.bits = bits;
            const AffineQuantized q = quantizeAffine(w.data(), 4, 64, o, false);
            for (uint8_t c : q.codes)
                QVERIFY(c < (1u << bits));
            QCOMPARE(dequantizeAffine(q).size(), w.size());
        }
        // The same through stats --requantize gptq, which quantizes with this rule.
        const auto ckpt = openCheckpoint(corpus("f16-nan-inf.safetensors").toStdString());
        StatsOptions opt;
        const WeightComparison c =
            compareRequantized(*ckpt, ckpt->weights.at(0), RequantizeSpec{"gptq", 4, 32, symmetric}, opt);
        QCOMPARE(c.shape, (std::vector<uint64_t>{16, 64}));
    }
};

QTEST_GUILESS_MAIN(TestShapeBounds)
#include "tst_shape_bounds.moc"
