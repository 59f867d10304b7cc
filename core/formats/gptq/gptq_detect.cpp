// Detection of GPTQ, AWQ and Marlin (spec safetensors-quant.md Part C): modules with a
// qweight, told apart by the shapes of qweight, qzeros and scales (the config only breaks
// ties), and AutoGPTQ's Marlin B and s.
#include "formats/gptq/gptq.h"

#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detect.h"
#include "formats/detectutil.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace qs::detect {
namespace {

std::string zeroWordHex(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08X", v);
    return buf;
}

struct ZeroScan {
    uint64_t fields = 0;
    bool allSame = true;
    uint32_t first = 0;
    uint64_t allOnes = 0; // fields equal to 2^b - 1
    uint64_t v1Sym = 0, v2Sym = 0; // fields equal to 2^(b-1) - 1 (v1 symmetric) and 2^(b-1) (v2)
    std::string leadWords; // the first word(s) in hex, for notes
};

// Decodes `fieldsPerRow` b-bit fields of each of `rows` rows, each row an LSB-first
// little-endian bitstream of `rowBytes` bytes (which is how every packing width lays it out).
ZeroScan scanFields(std::span<const uint8_t> bytes, uint64_t rows, uint64_t rowBytes, uint64_t fieldsPerRow, int b)
{
    ZeroScan z;
    const uint32_t mask = (1u << b) - 1;
    for (uint64_t r = 0; r < rows; ++r) {
        const uint8_t* row = bytes.data() + r * rowBytes;
        for (uint64_t n = 0; n < fieldsPerRow; ++n) {
            const uint64_t bit = n * static_cast<uint64_t>(b);
            const uint64_t byte = bit / 8;
            uint32_t v = row[byte];
            if (byte + 1 < rowBytes)
                v |= static_cast<uint32_t>(row[byte + 1]) << 8;
            v = (v >> (bit % 8)) & mask;
            if (z.fields == 0)
                z.first = v;
            else if (v != z.first)
                z.allSame = false;
            z.allOnes += v == mask;
            z.v1Sym += v == (1u << (b - 1)) - 1;
            z.v2Sym += v == 1u << (b - 1);
            ++z.fields;
        }
    }
    const size_t words = std::min<size_t>(b == 3 ? 3 : 1, bytes.size() / 4);
    for (size_t i = 0; i < words; ++i) {
        uint32_t w = 0;
        std::memcpy(&w, bytes.data() + 4 * i, 4);
        z.leadWords += (i ? " " : "") + zeroWordHex(w);
    }
    return z;
}

// K and the code width: K from the g_idx length, else groups x group size (independent of the
// bits label, so a wrong label shows), else qweight rows and the configured bits; the bits from
// qweight's rows for that K, noted where the config disagrees or they cannot be derived.
int gptqBits(Context& cx, LogicalWeight& w, const TensorEntry& q, int ig, uint64_t G, std::optional<int64_t> cfgBits,
             std::optional<int64_t> cfgGroup, uint64_t& K)
{
    const uint64_t a = q.shape[0], P = dtypeBits(q.dtype);
    // The bits qweight's rows hold (a qweight without columns may claim any number of rows:
    // a product that overflows derives nothing).
    const uint64_t aP = mulChecked(a, P).value_or(0);
    const auto validBits = [&](uint64_t k) { return k && aP % k == 0 && aP / k >= 2 && aP / k <= 8; };
    if (ig >= 0 && cx.tensor(ig).shape.size() == 1) {
        K = cx.tensor(ig).shape[0];
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "K = %1 from the g_idx length"), {std::to_string(K)}});
    }
    if (const uint64_t gK = cfgGroup && *cfgGroup > 0 ? mulChecked(G, uint64_t(*cfgGroup)).value_or(0) : 0;
        !K && validBits(gK)) {
        K = gK;
        w.evidence.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "K = %1 from scales rows x group_size"), {std::to_string(K)}});
    }
    if (!K && aP && cfgBits && *cfgBits > 0 && aP % static_cast<uint64_t>(*cfgBits) == 0) {
        K = aP / static_cast<uint64_t>(*cfgBits);
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "K = %1 from qweight rows and the configured bits"),
                              {std::to_string(K)}});
    }
    int b = 0;
    if (K && aP % K == 0)
        b = static_cast<int>(aP / K);
    if (b < 2 || b > 8) {
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "bits cannot be derived: qweight %1 for K = %2"),
                           {shapeText(q.shape), std::to_string(K)}});
        b = cfgBits ? static_cast<int>(*cfgBits) : 0;
    } else if (cfgBits && *cfgBits != b) {
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "config says bits %1, but qweight %2 for K = %3 holds %4-bit codes: %4 bits"),
             {std::to_string(*cfgBits), shapeText(q.shape), std::to_string(K), std::to_string(b)}});
    }
    return b;
}

// The group size: the config's where it gives the stored number of groups, else derived from
// the groups (noted).
int64_t gptqGroupSize(LogicalWeight& w, std::optional<int64_t> cfgGroup, uint64_t K, uint64_t G)
{
    int64_t gs = 0;
    if (cfgGroup && (*cfgGroup <= 0 || static_cast<uint64_t>(*cfgGroup) >= K))
        gs = static_cast<int64_t>(K);
    else if (cfgGroup)
        gs = *cfgGroup;
    if (K && (!gs || ceilDiv(K, static_cast<uint64_t>(gs)) != G)) {
        if (gs)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message", "config group_size %1 does not give %2 groups for K = %3"),
                 {std::to_string(gs), std::to_string(G), std::to_string(K)}});
        gs = G <= 1 ? static_cast<int64_t>(K) : (K % G == 0 ? static_cast<int64_t>(K / G) : 0);
    }
    return gs;
}

// v1 / v2 and symmetry from the stored zeros (B.1.1), which win over the label when they
// disagree; `label` is the config's checkpoint_format, `lab` what is assumed without one. A
// config that says sym false keeps its label: an asymmetric quantizer can give every group the
// same zero (one group per row, a symmetric range), and 7 is then a 4-bit v2 zero, not v1's 8.
void readGptqZeros(Context& cx, LogicalWeight& w, int iz, uint64_t N, int b, const std::optional<std::string>& label,
                   const std::string& lab, std::optional<bool> cfgSym)
{
    const bool labelV2 = lab == "gptq_v2";
    const TensorEntry& zt = cx.tensor(iz);
    const auto zb = cx.small(iz, w);
    if (!zb)
        return;
    const std::optional<uint64_t> rowBytes = mulChecked(zt.shape[1], dtypeBits(zt.dtype) / 8);
    const std::optional<uint64_t> zeroBytes = rowBytes ? mulChecked(*rowBytes, zt.shape[0]) : std::nullopt;
    const std::optional<uint64_t> fieldBits = mulChecked(N, uint64_t(b));
    if (!zeroBytes || !fieldBits || *zeroBytes > zb->size() || ceilDiv(*fieldBits, 8) > *rowBytes)
        return;
    const ZeroScan z = scanFields(*zb, zt.shape[0], *rowBytes, N, b);
    const uint32_t v1Sym = (1u << (b - 1)) - 1, v2Sym = 1u << (b - 1);
    const bool constantSym = z.fields && z.allSame && (z.first == v1Sym || z.first == v2Sym);
    if (constantSym && !(cfgSym && !*cfgSym)) {
        const bool v2 = z.first == v2Sym;
        w.symmetric = true;
        w.params[QT_TRANSLATE_NOOP("qs::Message", "zero_test")] = v2
            ? QT_TRANSLATE_NOOP("qs::Message", "v2 (every zero field is 2^(b-1))")
            : QT_TRANSLATE_NOOP("qs::Message", "v1 (every zero field is 2^(b-1)-1)");
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "qzeros read: every field is %1 (%2)"),
                              {std::to_string(z.first), z.leadWords}});
        if (v2 != labelV2 && label)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says checkpoint_format %1, zeros read %2: %3"),
                               {lab, z.leadWords, v2 ? "v2" : "v1"}});
        else if (v2 != labelV2)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "no checkpoint_format in the config (gptq assumed), zeros read %1: %2"),
                 {z.leadWords, v2 ? "v2" : "v1"}});
        w.format = v2 ? "gptq-v2" : "gptq-v1";
        return;
    }
    if (z.fields && z.v1Sym && z.v2Sym && z.v1Sym + z.v2Sym == z.fields) {
        // Every field is one of the two symmetric zeros: a writer that mixed the conventions
        // (some groups stored z - 1, others z). Read as asymmetric by the label, which is right
        // for one kind of group only; say so rather than pick silently.
        w.params[QT_TRANSLATE_NOOP("qs::Message", "zero_convention")] = QT_TRANSLATE_NOOP("qs::Message", "mixed");
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "zero convention: qzeros mix GPTQ v1 and v2 symmetric zeros: %1 fields are %2 (v1), "
                               "%3 are %4 (v2); read as %5 by the label, so the other groups are off by one"),
             {std::to_string(z.v1Sym), std::to_string(v1Sym), std::to_string(z.v2Sym), std::to_string(v2Sym),
              labelV2 ? "v2" : "v1"}});
    }
    w.symmetric = false;
    w.params["zero_test"] = QT_TRANSLATE_NOOP("qs::Message", "asymmetric: label trusted");
    if (z.allSame)
        w.evidence.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "qzeros read: every zero field is %1 (asymmetric), so the label decides v1/v2"),
             {std::to_string(z.first)}});
    else
        w.evidence.push_back(QT_TRANSLATE_NOOP(
            "qs::Message", "qzeros read: the zero fields vary (asymmetric), so the label decides v1/v2"));
    if (constantSym && (z.first == v2Sym) != labelV2) // the zero test alone would have read the other convention
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "config says sym false: every zero field is %1, as symmetric %2 zeros would be; "
                               "read as %3 by checkpoint_format"),
             {std::to_string(z.first), z.first == v2Sym ? "v2" : "v1", labelV2 ? "v2" : "v1"}});
    if (cfgSym && *cfgSym && z.allSame)
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "config says sym true, but every zero field is %1: asymmetric"),
             {std::to_string(z.first)}});
    else if (cfgSym && *cfgSym)
        w.notes.push_back(
            QT_TRANSLATE_NOOP("qs::Message", "config says sym true, but the zero fields vary: asymmetric"));
    if (!labelV2 && z.allOnes) {
        w.params[QT_TRANSLATE_NOOP("qs::Message", "v1_all_ones_fields")] = std::to_string(z.allOnes);
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                             "%1 of %2 zero fields equal %3 = 2^b-1: v1 cannot store zero point 0, so "
                                             "these are ambiguous or corrupt"),
                           {std::to_string(z.allOnes), std::to_string(z.fields), std::to_string((1u << b) - 1)}});
    }
}

void detectGptq(Context& cx, const Group& g, LogicalWeight& w, int iq, int iz, int is, int ig)
{
    const TensorEntry& q = cx.tensor(iq);
    const auto& S = cx.tensor(is).shape;
    cx.add(w, "qweight", iq);
    cx.add(w, "qzeros", iz);
    cx.add(w, "scales", is);
    cx.add(w, "g_idx", ig);
    const uint64_t N = S[1], G = S[0];
    const uint64_t P = dtypeBits(q.dtype); // container width: int32 normally (GPTQModel pack_dtype)
    w.evidence.push_back(
        {QT_TRANSLATE_NOOP("qs::Message",
                           "qweight %1 %2, scales %3: qweight.cols == scales.cols (GPTQ, packed along K)"),
         {std::string(dtypeName(q.dtype)), shapeText(q.shape), shapeText(S)}});

    const auto cfgBits = cx.config().intFor(g.prefix, {"bits", "w_bit"}, &w);
    const auto cfgGroup = cx.config().intFor(g.prefix, {"group_size", "q_group_size", "groupsize"}, &w);
    w.descAct = cx.config().boolFor(g.prefix, {"desc_act"}, &w).value_or(false);
    const auto cfgSym = cx.config().boolFor(g.prefix, {"sym"}, &w);
    auto label = cx.config().strFor(g.prefix, {"checkpoint_format", "format"}, &w);
    if (!label && cx.config().boolFor(g.prefix, {"is_marlin_format"}, &w).value_or(false))
        label = "marlin";

    uint64_t K = 0;
    const int b = gptqBits(cx, w, q, ig, G, cfgBits, cfgGroup, K);
    w.bits = b;
    w.shape = {N, K};
    w.format = "gptq-v1";
    // qzeros is [G, ceil(N * b / P)] words; any other rank or width holds no zero per column.
    const bool zerosFit = iz >= 0 && b > 0 && cx.tensor(iz).shape.size() == 2
        && cx.tensor(iz).shape[1] == ceilDiv(mulChecked(N, uint64_t(b)).value_or(UINT64_MAX), P);
    if (iz >= 0 && b > 0 && !zerosFit)
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "qzeros %1 does not hold %2 %3-bit fields per group"),
                           {shapeText(cx.tensor(iz).shape), std::to_string(N), std::to_string(b)}});
    if (iz < 0)
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "no qzeros: zero points cannot be checked"));

    const int64_t gs = gptqGroupSize(w, cfgGroup, K, G);
    w.groupSize = gs;
    if (ig >= 0 && K)
        readGidx(cx, w, ig, K, gs, G);

    // v1 / v2: the label, then the stored zeros (B.1.1), which win when they disagree.
    const std::string lab = label.value_or("gptq");
    w.params[QT_TRANSLATE_NOOP("qs::Message", "checkpoint_format")] = lab;
    if (lab == "gptq_p" || (b >= 5 && b <= 7)) {
        w.format = "gptq-planar";
        w.symmetric = cfgSym.value_or(true);
        return;
    }
    if (lab == "marlin" || lab == "bitblas")
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "config says checkpoint_format %1, but the tensors have the plain GPTQ layout"),
             {lab}});
    const bool labelV2 = lab == "gptq_v2";
    w.format = labelV2 ? "gptq-v2" : "gptq-v1";
    w.symmetric = cfgSym.value_or(true);
    if (iz < 0 || b <= 0 || b > 8 || cx.tensor(iz).shape.size() != 2) // a 1-D qzeros has no rows of fields to read
        return;
    readGptqZeros(cx, w, iz, N, b, label, lab, cfgSym);
}

void detectAwq(Context& cx, const Group& g, LogicalWeight& w, const std::string& version, int iq, int iz, int is)
{
    const TensorEntry& q = cx.tensor(iq);
    const auto& S = cx.tensor(is).shape;
    cx.add(w, "qweight", iq);
    cx.add(w, "qzeros", iz);
    cx.add(w, "scales", is);
    const auto cfgGroup = cx.config().intFor(g.prefix, {"group_size", "q_group_size"}, &w);
    const auto cfgBits = cx.config().intFor(g.prefix, {"bits", "w_bit"}, &w);
    const auto zeroPoint = cx.config().boolFor(g.prefix, {"zero_point"}, &w);
    w.params[QT_TRANSLATE_NOOP("qs::Message", "version")] = version;
    w.bits = 4;
    w.symmetric = iz < 0;
    uint64_t N = 0, K = 0, G = 0;
    const uint64_t a = q.shape[0], c = q.shape[1];
    if (version == "gemm") {
        w.format = "awq-gemm";
        K = a, N = S[1], G = S[0];
        w.evidence.push_back(
            {QT_TRANSLATE_NOOP(
                 "qs::Message",
                 "qweight %1, qzeros, scales %2: qweight.cols*8 == scales.cols, rows = K (AWQ GEMM, packed along N)"),
             {shapeText(q.shape), shapeText(S)}});
    } else if (version == "gemv") {
        w.format = "awq-gemv";
        N = a, K = mulChecked(c, 8).value_or(UINT64_MAX);
        w.evidence.push_back(
            {QT_TRANSLATE_NOOP(
                 "qs::Message",
                 "qweight %1, scales %2: rows = N, scales.cols == 8*qzeros.cols (AWQ GEMV, packed along K)"),
             {shapeText(q.shape), shapeText(S)}});
    } else if (version == "gemv_fast") {
        w.format = "awq-gemv-fast";
        N = mulChecked(a, 4).value_or(UINT64_MAX), K = c;
        w.evidence.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "qweight I16 %1 (AWQ GEMV_FAST)"), {shapeText(q.shape)}});
        if (S[1] != N)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "scales %1 do not have N = %2 columns"),
                               {shapeText(S), std::to_string(N)}});
    } else {
        w.format = "awq-marlin";
        w.symmetric = true;
        K = mulChecked(a, 16).value_or(UINT64_MAX), N = S[1], G = S[0];
        w.bits = c == 4 * S[1] ? 8 : 4;
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "qweight %1 = [K/16, %2], no qzeros (AWQ Marlin tiles)"),
                              {shapeText(q.shape), w.bits == 4 ? "2N" : "4N"}});
    }
    if (cfgBits && *cfgBits != w.bits)
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says bits %1, the shapes give %2"),
                           {std::to_string(*cfgBits), std::to_string(w.bits)}});
    if (zeroPoint && *zeroPoint == w.symmetric)
        w.notes.push_back({iz < 0
                               ? QT_TRANSLATE_NOOP("qs::Message", "config says zero_point %1, but qzeros is absent")
                               : QT_TRANSLATE_NOOP("qs::Message", "config says zero_point %1, but qzeros is present"),
                           {*zeroPoint ? "true" : "false"}});
    w.shape = {N, K};
    if (G) {
        w.groupSize = G == 1 ? static_cast<int64_t>(K) : (K % G == 0 ? static_cast<int64_t>(K / G) : 0);
        if (cfgGroup && *cfgGroup > 0 && *cfgGroup != w.groupSize)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says group_size %1, the shapes give %2"),
                               {std::to_string(*cfgGroup), std::to_string(w.groupSize)}});
    } else if (cfgGroup) {
        w.groupSize = *cfgGroup > 0 ? *cfgGroup : static_cast<int64_t>(K);
    } else {
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "group size unknown: no config and the padded %1 layout does not tell"),
             {version}});
    }
}

bool detectQweight(Context& cx, const Group& g)
{
    const int iq = g.find("qweight");
    if (iq < 0)
        return false;
    const int iz = g.find("qzeros"), is = g.find("scales"), ig = g.find("g_idx");
    const TensorEntry& q = cx.tensor(iq);
    LogicalWeight w;
    w.name = g.prefix;
    const std::string version = cx.config().strFor(g.prefix, {"version"}, nullptr).value_or("");
    const std::string method = cx.config().method();

    if (is < 0 || q.shape.size() != 2 || cx.tensor(is).shape.size() != 2 || !isIntDType(q.dtype)) {
        return false; // not a layout we know: its tensors are listed as plain ones
    }
    if (q.dtype == DType::I16) {
        detectAwq(cx, g, w, "gemv_fast", iq, iz, is);
        cx.finish(std::move(w));
        return true;
    }
    const auto& S = cx.tensor(is).shape;
    const uint64_t a = q.shape[0], c = q.shape[1];
    const bool hasZ = iz >= 0 && cx.tensor(iz).shape.size() == 2;
    const Shape Z = hasZ ? cx.tensor(iz).shape : Shape{0, 0};
    const bool gptqShape = c == S[1] && (!hasZ || Z[0] == S[0]);
    const bool gemmShape = hasZ && mulChecked(c, 8) == S[1] && Z[0] == S[0] && Z[1] == c;
    const bool gemvShape = hasZ && a == S[0] && Z[0] == a && S[1] == 8 * Z[1];
    const bool marlinShape = !hasZ && (c == 2 * S[1] || c == 4 * S[1]);

    const bool saysAwq = method == "awq" || !version.empty();
    if (marlinShape && (version == "marlin" || saysAwq || !gptqShape)) {
        detectAwq(cx, g, w, "marlin", iq, iz, is);
        cx.finish(std::move(w));
        return true;
    }
    // Shapes first; the config decides only between layouts that fit the shapes equally.
    std::string verdict;
    if (gemvShape && (version == "gemv" || (!gptqShape && !gemmShape)))
        verdict = "awq-gemv";
    else if (gptqShape && !(gemmShape && saysAwq))
        verdict = "gptq";
    else if (gemmShape)
        verdict = "awq-gemm";
    else if (gemvShape)
        verdict = "awq-gemv";
    if (verdict.empty())
        return false;
    if (verdict == "gptq") {
        if (method == "awq")
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                                 "config says quant_method awq, but qweight %1 and scales %2 have the "
                                                 "GPTQ layout (qweight.cols == scales.cols)"),
                               {shapeText(q.shape), shapeText(S)}});
        detectGptq(cx, g, w, iq, iz, is, ig);
        cx.finish(std::move(w));
    } else {
        if (method == "gptq")
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "config says quant_method gptq, but the shapes fit AWQ %1 (qweight %2, scales %3)"),
                 {verdict.substr(4), shapeText(q.shape), shapeText(S)}});
        if (!version.empty() && version != verdict.substr(4) && !(version == "exllama" || version == "ipex"))
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says version %1, but the shapes fit %2"),
                               {version, verdict.substr(4)}});
        detectAwq(cx, g, w, verdict.substr(4), iq, iz, is);
        cx.finish(std::move(w));
    }
    return true;
}

// Marlin as AutoGPTQ stores it: tensors B and s.
bool detectMarlinBs(Context& cx, const Group& g)
{
    const int ib = g.find("B"), is = g.find("s");
    if (ib < 0 || is < 0 || cx.tensor(ib).shape.size() != 2 || cx.tensor(is).shape.size() != 2
        || !isIntDType(cx.tensor(ib).dtype))
        return false;
    const auto& B = cx.tensor(ib).shape;
    const auto& S = cx.tensor(is).shape;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "gptq-marlin";
    cx.add(w, "B", ib);
    cx.add(w, "s", is);
    const uint64_t K = mulChecked(B[0], 16).value_or(UINT64_MAX), N = S[1], G = S[0];
    w.bits = B[1] == 4 * N ? 8 : 4;
    w.shape = {N, K};
    w.groupSize = G <= 1 ? static_cast<int64_t>(K) : (K % G == 0 ? static_cast<int64_t>(K / G) : 0);
    w.symmetric = true;
    w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "B %1 = [K/16, %2], s %3 (Marlin tiles)"),
                          {shapeText(B), w.bits == 4 ? "2N" : "4N", shapeText(S)}});
    if (const auto lab = cx.config().strFor(g.prefix, {"checkpoint_format", "format"}, &w); lab && *lab != "marlin")
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "config says checkpoint_format %1, but the tensors are Marlin's B and s"),
             {*lab}});
    cx.finish(std::move(w));
    return true;
}

} // namespace

bool gptqGroup(Context& cx, const Group& g)
{
    return detectQweight(cx, g) || detectMarlinBs(cx, g);
}

void gptqAcrossWeights(std::vector<LogicalWeight>& weights)
{
    // Symmetric GPTQ weights are read by their own zeros (v1 or v2 each). One checkpoint holding
    // both means its writer mixed the conventions: every such weight says so.
    std::vector<LogicalWeight*> v1, v2;
    for (LogicalWeight& w : weights)
        if (w.symmetric && w.params.count("zero_test"))
            (w.format == "gptq-v2" ? v2 : v1).push_back(&w);
    if (!v1.empty() && !v2.empty())
        for (auto* group : {&v1, &v2})
            for (LogicalWeight* w : *group) {
                w->params["zero_convention"] = "mixed";
                w->notes.push_back(
                    {QT_TRANSLATE_NOOP("qs::Message",
                                       "zero convention: this checkpoint mixes GPTQ v1 and v2 symmetric zeros "
                                       "(%1 weights v1, %2 v2); this one reads as %3 by its own zeros"),
                     {std::to_string(v1.size()), std::to_string(v2.size()), group == &v2 ? "v2" : "v1"}});
            }
}

void readGidx(Context& cx, LogicalWeight& w, int ig, uint64_t K, int64_t groupSize, uint64_t G)
{
    const TensorEntry& t = cx.tensor(ig);
    const auto v = cx.ints(ig, w);
    if (!v)
        return;
    if (v->size() != K) {
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "'%1' has %2 entries for K = %3"),
                           {std::string(t.name), std::to_string(v->size()), std::to_string(K)}});
        return;
    }
    if (groupSize <= 0) {
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "group size unknown: act-order (g_idx) not checked"));
        return;
    }
    bool trivial = true;
    uint64_t outOfRange = 0;
    for (size_t k = 0; k < v->size(); ++k) {
        const int64_t x = (*v)[k];
        if (x < 0 || static_cast<uint64_t>(x) >= G)
            ++outOfRange;
        if (x != static_cast<int64_t>(k / static_cast<uint64_t>(groupSize)))
            trivial = false;
    }
    w.actOrder = !trivial;
    w.evidence.push_back(
        trivial ? QT_TRANSLATE_NOOP("qs::Message", "g_idx read: g_idx[k] == k / group_size for every k (sequential)")
                : QT_TRANSLATE_NOOP("qs::Message", "g_idx read: non-trivial (act-order)"));
    if (outOfRange)
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "%1 g_idx entries are not a group index (there are %2 groups)"),
             {std::to_string(outOfRange), std::to_string(G)}});
    if (w.descAct && trivial)
        w.notes.push_back(QT_TRANSLATE_NOOP(
            "qs::Message", "config says desc_act true, but g_idx is sequential: no act-order in the stored data"));
    if (!w.descAct && !trivial)
        w.notes.push_back(QT_TRANSLATE_NOOP(
            "qs::Message", "g_idx is not sequential although desc_act is not set: act-order in the stored data"));
}

} // namespace qs::detect
