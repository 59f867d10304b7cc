// kernelutil.h's dispatchRows, the one DequantRowsFn body of the families whose kernels read parsed
// state (bnb, compressed-tensors, MLX, HQQ, plain floats): the state parsed once per thread and
// weight, however many row ranges are asked; the scalar reference over the whole range when the
// path has no kernel; every row once, at its place, in both row and element spans; a kernel's
// exception reaching the caller; a range outside the weight refused.
#include "container/checkpoint.h"
#include "formats/kernelutil.h"

#include <QTest>

#include <atomic>
#include <stdexcept>
#include <vector>

using namespace qs;

namespace {

struct RowState {
    uint64_t rows = 0, cols = 0;
};

std::atomic<int> g_parses{0};

RowState parseRows(const WeightData& w)
{
    ++g_parses;
    return RowState{w.weight.outFeatures(), w.weight.inFeatures()};
}

// Writes 1000 * row + col + (scalar ? 0.5 : 0), from rows or from flat elements.
void rowsFast(const RowState& s, uint64_t r0, uint64_t r1, float* out)
{
    for (uint64_t r = r0; r < r1; ++r)
        for (uint64_t k = 0; k < s.cols; ++k)
            out[(r - r0) * s.cols + k] = float(1000 * r + k);
}
void rowsScalar(const RowState& s, uint64_t r0, uint64_t r1, float* out)
{
    rowsFast(s, r0, r1, out);
    for (uint64_t i = 0; i < (r1 - r0) * s.cols; ++i)
        out[i] += 0.5f;
}
void elementsFast(const RowState& s, uint64_t e0, uint64_t n, float* out)
{
    for (uint64_t i = 0; i < n; ++i)
        out[i] = float(1000 * ((e0 + i) / s.cols) + (e0 + i) % s.cols);
}
void elementsThrowing(const RowState& s, uint64_t e0, uint64_t, float*)
{
    if (e0 / s.cols >= 40)
        throw Error("row 40 failed");
}

using RowsFn = void (*)(const RowState&, uint64_t, uint64_t, float*);
using ElementsFn = void (*)(const RowState&, uint64_t, uint64_t, float*);

LogicalWeight weightOf(uint64_t rows, uint64_t cols)
{
    LogicalWeight w;
    w.name = "m.weight";
    w.format = "test";
    w.shape = {rows, cols};
    return w;
}

} // namespace

class TestDispatchRows : public QObject {
    Q_OBJECT
private slots:
    void everyRowOnceAtItsPlace_data()
    {
        QTest::addColumn<bool>("elements");
        QTest::addColumn<bool>("fast");
        QTest::addRow("rows, fast") << false << true;
        QTest::addRow("rows, scalar") << false << false;
        QTest::addRow("elements, fast") << true << true;
    }
    void everyRowOnceAtItsPlace()
    {
        QFETCH(bool, elements);
        QFETCH(bool, fast);
        // 64 columns: 1024 rows a chunk, so 3000 rows make three chunks run in parallel.
        const Checkpoint ck;
        const LogicalWeight lw = weightOf(3000, 64);
        const WeightData w{ck, lw};
        const uint64_t r0 = 5, r1 = 2999;
        std::vector<float> out((r1 - r0) * 64, -1.0f);
        if (elements)
            dispatchRows<RowState, RowSpan::Elements>(w, r0, r1, out.data(), parseRows, ElementsFn(elementsFast),
                                                      fast ? ElementsFn(elementsFast) : nullptr);
        else
            dispatchRows<RowState, RowSpan::Rows>(w, r0, r1, out.data(), parseRows, RowsFn(rowsScalar),
                                                  fast ? RowsFn(rowsFast) : nullptr);
        const float scalarMark = elements || fast ? 0.0f : 0.5f;
        for (uint64_t r = r0; r < r1; ++r)
            for (uint64_t k = 0; k < 64; ++k)
                QCOMPARE(out[(r - r0) * 64 + k], float(1000 * r + k) + scalarMark);
    }

    // The families parsed MLX's, bnb int8's and the plain floats' state again for every range.
    void stateParsedOncePerThreadAndWeight()
    {
        const Checkpoint ck;
        const LogicalWeight lw = weightOf(64, 64);
        const WeightData w{ck, lw};
        std::vector<float> out(16 * 64);
        const int before = g_parses.load();
        for (uint64_t r = 0; r < 64; r += 16)
            dispatchRows<RowState, RowSpan::Rows>(w, r, r + 16, out.data(), parseRows, RowsFn(rowsScalar),
                                                  RowsFn(rowsFast));
        QCOMPARE(g_parses.load() - before, 1);
        const LogicalWeight other = weightOf(32, 64); // another weight: parsed for itself
        dispatchRows<RowState, RowSpan::Rows>(WeightData{ck, other}, 0, 16, out.data(), parseRows, RowsFn(rowsScalar),
                                              RowsFn(rowsFast));
        QCOMPARE(g_parses.load() - before, 2);
    }

    void errorsReachTheCaller()
    {
        const Checkpoint ck;
        const LogicalWeight lw = weightOf(4096, 64);
        const WeightData w{ck, lw};
        std::vector<float> out(4096 * 64);
        QVERIFY_THROWS_EXCEPTION(Error,
                                 dispatchRows<RowState, RowSpan::Elements>(w, 0, 4096, out.data(), parseRows,
                                                                           ElementsFn(elementsFast),
                                                                           ElementsFn(elementsThrowing)));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 dispatchRows<RowState, RowSpan::Rows>(w, 10, 4097, out.data(), parseRows,
                                                                       RowsFn(rowsScalar), RowsFn(rowsFast)));
        QVERIFY_THROWS_EXCEPTION(Error,
                                 dispatchRows<RowState, RowSpan::Rows>(w, 11, 10, out.data(), parseRows,
                                                                       RowsFn(rowsScalar), RowsFn(rowsFast)));
    }
};

QTEST_GUILESS_MAIN(TestDispatchRows)
#include "tst_dispatchrows.moc"
