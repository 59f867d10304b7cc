// safetensors container: every fixture against PROVENANCE.md, writer layout and round
// trips (single file and sharded folder), and one test per kind of bad input.
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <sys/mman.h>
#include <unistd.h>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

struct ExpectedTensor {
    const char* name;
    const char* dtype;
    std::vector<uint64_t> shape;
};
struct FixtureFile {
    const char* path; // under fixtures/safetensors/
    uint64_t bytes;
    std::vector<ExpectedTensor> tensors;
};

// Transcribed from ../shared/fixtures/PROVENANCE.md: "safetensors tensor inventory" (model.safetensors),
// "Source weights" and "safetensors/" (ref.safetensors: <module>.weight as F32 [N, K]; sources.safetensors),
// and the byte counts of the "Files" table.
const std::vector<FixtureFile> kFixtures = {
    {"awq-gemm-w4-g128/model.safetensors",
     17360,
     {
         {"model.layers.0.mlp.down_proj.qweight", "I32", {256, 16}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {2, 16}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {2, 128}},
     }},
    {"awq-gemm-w4-g128/ref.safetensors",
     131216,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
     }},
    {"awq-gemm-w4-g32/model.safetensors",
     21952,
     {
         {"model.layers.0.mlp.down_proj.qweight", "I32", {256, 16}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {8, 16}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {8, 128}},
         {"model.layers.0.self_attn.q_proj.qweight", "I32", {64, 8}},
         {"model.layers.0.self_attn.q_proj.qzeros", "I32", {2, 8}},
         {"model.layers.0.self_attn.q_proj.scales", "F16", {2, 64}},
     }},
    {"awq-gemm-w4-g32/ref.safetensors",
     147704,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"bnb-fp4-doublequant/model.safetensors",
     30498,
     {
         {"model.layers.0.mlp.down_proj.weight", "U8", {16384, 1}},
         {"model.layers.0.mlp.down_proj.weight.absmax", "U8", {512}},
         {"model.layers.0.mlp.down_proj.weight.nested_absmax", "F32", {2}},
         {"model.layers.0.mlp.down_proj.weight.nested_quant_map", "F32", {256}},
         {"model.layers.0.mlp.down_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__fp4", "U8", {169}},
         {"model.layers.0.mlp.gate_proj.weight", "U8", {5504, 1}},
         {"model.layers.0.mlp.gate_proj.weight.absmax", "U8", {172}},
         {"model.layers.0.mlp.gate_proj.weight.nested_absmax", "F32", {1}},
         {"model.layers.0.mlp.gate_proj.weight.nested_quant_map", "F32", {256}},
         {"model.layers.0.mlp.gate_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.gate_proj.weight.quant_state.bitsandbytes__fp4", "U8", {167}},
         {"model.layers.0.self_attn.q_proj.weight", "U8", {2048, 1}},
         {"model.layers.0.self_attn.q_proj.weight.absmax", "U8", {64}},
         {"model.layers.0.self_attn.q_proj.weight.nested_absmax", "F32", {1}},
         {"model.layers.0.self_attn.q_proj.weight.nested_quant_map", "F32", {256}},
         {"model.layers.0.self_attn.q_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__fp4", "U8", {166}},
     }},
    {"bnb-fp4-doublequant/ref.safetensors",
     191832,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.mlp.gate_proj.weight", "F32", {172, 64}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"bnb-fp4/model.safetensors",
     28706,
     {
         {"model.layers.0.mlp.down_proj.weight", "U8", {16384, 1}},
         {"model.layers.0.mlp.down_proj.weight.absmax", "F32", {512}},
         {"model.layers.0.mlp.down_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__fp4", "U8", {79}},
         {"model.layers.0.mlp.gate_proj.weight", "U8", {5504, 1}},
         {"model.layers.0.mlp.gate_proj.weight.absmax", "F32", {172}},
         {"model.layers.0.mlp.gate_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.gate_proj.weight.quant_state.bitsandbytes__fp4", "U8", {78}},
         {"model.layers.0.self_attn.q_proj.weight", "U8", {2048, 1}},
         {"model.layers.0.self_attn.q_proj.weight.absmax", "F32", {64}},
         {"model.layers.0.self_attn.q_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__fp4", "U8", {77}},
     }},
    {"bnb-fp4/ref.safetensors",
     191832,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.mlp.gate_proj.weight", "F32", {172, 64}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"bnb-nf4-doublequant/model.safetensors",
     30498,
     {
         {"model.layers.0.mlp.down_proj.weight", "U8", {16384, 1}},
         {"model.layers.0.mlp.down_proj.weight.absmax", "U8", {512}},
         {"model.layers.0.mlp.down_proj.weight.nested_absmax", "F32", {2}},
         {"model.layers.0.mlp.down_proj.weight.nested_quant_map", "F32", {256}},
         {"model.layers.0.mlp.down_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", "U8", {169}},
         {"model.layers.0.mlp.gate_proj.weight", "U8", {5504, 1}},
         {"model.layers.0.mlp.gate_proj.weight.absmax", "U8", {172}},
         {"model.layers.0.mlp.gate_proj.weight.nested_absmax", "F32", {1}},
         {"model.layers.0.mlp.gate_proj.weight.nested_quant_map", "F32", {256}},
         {"model.layers.0.mlp.gate_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.gate_proj.weight.quant_state.bitsandbytes__nf4", "U8", {167}},
         {"model.layers.0.self_attn.q_proj.weight", "U8", {2048, 1}},
         {"model.layers.0.self_attn.q_proj.weight.absmax", "U8", {64}},
         {"model.layers.0.self_attn.q_proj.weight.nested_absmax", "F32", {1}},
         {"model.layers.0.self_attn.q_proj.weight.nested_quant_map", "F32", {256}},
         {"model.layers.0.self_attn.q_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__nf4", "U8", {166}},
     }},
    {"bnb-nf4-doublequant/ref.safetensors",
     191832,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.mlp.gate_proj.weight", "F32", {172, 64}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"bnb-nf4/model.safetensors",
     28706,
     {
         {"model.layers.0.mlp.down_proj.weight", "U8", {16384, 1}},
         {"model.layers.0.mlp.down_proj.weight.absmax", "F32", {512}},
         {"model.layers.0.mlp.down_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", "U8", {79}},
         {"model.layers.0.mlp.gate_proj.weight", "U8", {5504, 1}},
         {"model.layers.0.mlp.gate_proj.weight.absmax", "F32", {172}},
         {"model.layers.0.mlp.gate_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.mlp.gate_proj.weight.quant_state.bitsandbytes__nf4", "U8", {78}},
         {"model.layers.0.self_attn.q_proj.weight", "U8", {2048, 1}},
         {"model.layers.0.self_attn.q_proj.weight.absmax", "F32", {64}},
         {"model.layers.0.self_attn.q_proj.weight.quant_map", "F32", {16}},
         {"model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__nf4", "U8", {77}},
     }},
    {"bnb-nf4/ref.safetensors",
     191832,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.mlp.gate_proj.weight", "F32", {172, 64}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"ct-pack-w4a16-channel-asym/model.safetensors",
     26936,
     {
         {"model.layers.0.mlp.down_proj.weight_packed", "I32", {128, 32}},
         {"model.layers.0.mlp.down_proj.weight_scale", "F32", {128, 1}},
         {"model.layers.0.mlp.down_proj.weight_shape", "I64", {2}},
         {"model.layers.0.mlp.down_proj.weight_zero_point", "I32", {16, 1}},
         {"model.layers.0.mlp.gate_proj.weight_packed", "I32", {172, 8}},
         {"model.layers.0.mlp.gate_proj.weight_scale", "F32", {172, 1}},
         {"model.layers.0.mlp.gate_proj.weight_shape", "I64", {2}},
         {"model.layers.0.mlp.gate_proj.weight_zero_point", "I32", {22, 1}},
         {"model.layers.0.self_attn.q_proj.weight_packed", "I32", {64, 8}},
         {"model.layers.0.self_attn.q_proj.weight_scale", "F32", {64, 1}},
         {"model.layers.0.self_attn.q_proj.weight_shape", "I64", {2}},
         {"model.layers.0.self_attn.q_proj.weight_zero_point", "I32", {8, 1}},
     }},
    {"ct-pack-w4a16-channel-asym/ref.safetensors",
     191832,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.mlp.gate_proj.weight", "F32", {172, 64}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"ct-pack-w4a16-g128-sym/model.safetensors",
     17776,
     {
         {"model.layers.0.mlp.down_proj.weight_packed", "I32", {128, 32}},
         {"model.layers.0.mlp.down_proj.weight_scale", "F32", {128, 2}},
         {"model.layers.0.mlp.down_proj.weight_shape", "I64", {2}},
     }},
    {"ct-pack-w4a16-g128-sym/ref.safetensors",
     131216,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
     }},
    {"ct-pack-w4a16-g32-asym/model.safetensors",
     24536,
     {
         {"model.layers.0.mlp.down_proj.weight_packed", "I32", {128, 32}},
         {"model.layers.0.mlp.down_proj.weight_scale", "F32", {128, 8}},
         {"model.layers.0.mlp.down_proj.weight_shape", "I64", {2}},
         {"model.layers.0.mlp.down_proj.weight_zero_point", "I32", {16, 8}},
         {"model.layers.0.self_attn.q_proj.weight_packed", "I32", {64, 8}},
         {"model.layers.0.self_attn.q_proj.weight_scale", "F32", {64, 2}},
         {"model.layers.0.self_attn.q_proj.weight_shape", "I64", {2}},
         {"model.layers.0.self_attn.q_proj.weight_zero_point", "I32", {8, 2}},
     }},
    {"ct-pack-w4a16-g32-asym/ref.safetensors",
     147704,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"ct-pack-w8a16-channel-sym/model.safetensors",
     50360,
     {
         {"model.layers.0.mlp.down_proj.weight_packed", "I32", {128, 64}},
         {"model.layers.0.mlp.down_proj.weight_scale", "F32", {128, 1}},
         {"model.layers.0.mlp.down_proj.weight_shape", "I64", {2}},
         {"model.layers.0.mlp.gate_proj.weight_packed", "I32", {172, 16}},
         {"model.layers.0.mlp.gate_proj.weight_scale", "F32", {172, 1}},
         {"model.layers.0.mlp.gate_proj.weight_shape", "I64", {2}},
         {"model.layers.0.self_attn.q_proj.weight_packed", "I32", {64, 16}},
         {"model.layers.0.self_attn.q_proj.weight_scale", "F32", {64, 1}},
         {"model.layers.0.self_attn.q_proj.weight_shape", "I64", {2}},
     }},
    {"ct-pack-w8a16-channel-sym/ref.safetensors",
     191832,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.mlp.gate_proj.weight", "F32", {172, 64}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"gptq-w2-g32-asym/model.safetensors",
     13912,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {16, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {8, 8}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {8, 128}},
         {"model.layers.0.self_attn.q_proj.g_idx", "I32", {64}},
         {"model.layers.0.self_attn.q_proj.qweight", "I32", {4, 64}},
         {"model.layers.0.self_attn.q_proj.qzeros", "I32", {2, 4}},
         {"model.layers.0.self_attn.q_proj.scales", "F16", {2, 64}},
     }},
    {"gptq-w2-g32-asym/ref.safetensors",
     147704,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"gptq-w3-g128-sym/model.safetensors",
     14352,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {24, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {2, 12}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {2, 128}},
     }},
    {"gptq-w3-g128-sym/ref.safetensors",
     131216,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
     }},
    {"gptq-w3-g32-asym/model.safetensors",
     18672,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {24, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {8, 12}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {8, 128}},
         {"model.layers.0.self_attn.q_proj.g_idx", "I32", {64}},
         {"model.layers.0.self_attn.q_proj.qweight", "I32", {6, 64}},
         {"model.layers.0.self_attn.q_proj.qzeros", "I32", {2, 6}},
         {"model.layers.0.self_attn.q_proj.scales", "F16", {2, 64}},
     }},
    {"gptq-w3-g32-asym/ref.safetensors",
     147704,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"gptq-w4-g128-asym-actorder/model.safetensors",
     18480,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {32, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {2, 16}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {2, 128}},
     }},
    {"gptq-w4-g128-asym-actorder/ref.safetensors",
     131216,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
     }},
    {"gptq-w4-g128-sym/model.safetensors",
     18480,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {32, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {2, 16}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {2, 128}},
     }},
    {"gptq-w4-g128-sym/ref.safetensors",
     131216,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
     }},
    {"gptq-w4-g32-asym/model.safetensors",
     23424,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {32, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {8, 16}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {8, 128}},
         {"model.layers.0.self_attn.q_proj.g_idx", "I32", {64}},
         {"model.layers.0.self_attn.q_proj.qweight", "I32", {8, 64}},
         {"model.layers.0.self_attn.q_proj.qzeros", "I32", {2, 8}},
         {"model.layers.0.self_attn.q_proj.scales", "F16", {2, 64}},
     }},
    {"gptq-w4-g32-asym/ref.safetensors",
     147704,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"gptq-w4-g32-sym-actorder/model.safetensors",
     23424,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {32, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {8, 16}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {8, 128}},
         {"model.layers.0.self_attn.q_proj.g_idx", "I32", {64}},
         {"model.layers.0.self_attn.q_proj.qweight", "I32", {8, 64}},
         {"model.layers.0.self_attn.q_proj.qzeros", "I32", {2, 8}},
         {"model.layers.0.self_attn.q_proj.scales", "F16", {2, 64}},
     }},
    {"gptq-w4-g32-sym-actorder/ref.safetensors",
     147704,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
         {"model.layers.0.self_attn.q_proj.weight", "F32", {64, 64}},
     }},
    {"gptq-w8-g128-sym/model.safetensors",
     34992,
     {
         {"model.layers.0.mlp.down_proj.g_idx", "I32", {256}},
         {"model.layers.0.mlp.down_proj.qweight", "I32", {64, 128}},
         {"model.layers.0.mlp.down_proj.qzeros", "I32", {2, 32}},
         {"model.layers.0.mlp.down_proj.scales", "F16", {2, 128}},
     }},
    {"gptq-w8-g128-sym/ref.safetensors",
     131216,
     {
         {"model.layers.0.mlp.down_proj.weight", "F32", {128, 256}},
     }},
    {"sources.safetensors",
     191792,
     {
         {"synthetic.W_128x256", "F32", {128, 256}},
         {"stories260K.layers.0.wq", "F32", {64, 64}},
         {"stories260K.layers.0.w1", "F32", {172, 64}},
     }},
};

const qs::TensorEntry* findTensor(const qs::Checkpoint& c, const std::string& name)
{
    for (const auto& t : c.tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

std::string le64(uint64_t n)
{
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return s;
}

std::string writeRaw(const QTemporaryDir& dir, const std::string& name, const QByteArray& bytes)
{
    const std::string path = (dir.path() + QLatin1Char('/') + QString::fromStdString(name)).toStdString();
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.constData(), bytes.size());
    return path;
}

QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

struct Snapshot {
    QByteArray sha;
    QDateTime mtime;
    bool operator==(const Snapshot&) const = default;
};
Snapshot snapshot(const std::string& path)
{
    return {QCryptographicHash::hash(readAll(path), QCryptographicHash::Sha256),
            QFileInfo(QString::fromStdString(path)).lastModified()};
}

// The error message readSafetensorsFile gives, or an empty string when it accepted the file.
QString readError(const std::string& path)
{
    qs::Checkpoint c;
    try {
        qs::readSafetensorsFile(c, path);
    } catch (const qs::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString openError(const std::string& path)
{
    try {
        qs::openCheckpoint(path);
    } catch (const qs::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

#define VERIFY_MESSAGE(msg, needle)                                                                                    \
    QVERIFY2((msg).contains(needle), qPrintable(QStringLiteral("'%1' not in: %2").arg(needle, msg)))

std::span<const uint8_t> bytesOf(const std::vector<uint8_t>& v)
{
    return {v.data(), v.size()};
}

uint64_t expectedBytes(qs::DType d, const std::vector<uint64_t>& shape)
{
    uint64_t n = 1;
    for (auto s : shape)
        n *= s;
    return n * qs::dtypeBits(d) / 8;
}

constexpr qs::DType kAllDTypes[] = {
    qs::DType::BOOL,    qs::DType::U8,          qs::DType::I8,          qs::DType::U16,     qs::DType::I16,
    qs::DType::U32,     qs::DType::I32,         qs::DType::U64,         qs::DType::I64,     qs::DType::F16,
    qs::DType::BF16,    qs::DType::F32,         qs::DType::F64,         qs::DType::C64,     qs::DType::F8_E4M3,
    qs::DType::F8_E5M2, qs::DType::F8_E4M3FNUZ, qs::DType::F8_E5M2FNUZ, qs::DType::F8_E8M0, qs::DType::F4,
    qs::DType::F6_E2M3, qs::DType::F6_E3M2,
};

// Owns the bytes behind a list of SafetensorsTensor.
struct TensorSet {
    std::vector<std::vector<uint8_t>> storage;
    std::vector<qs::SafetensorsTensor> tensors;
    void add(const std::string& name, qs::DType d, std::vector<uint64_t> shape, quint32 seed)
    {
        std::vector<uint8_t> data(expectedBytes(d, shape));
        QRandomGenerator rng(seed);
        for (auto& b : data)
            b = static_cast<uint8_t>(rng.bounded(256));
        storage.push_back(std::move(data));
        tensors.push_back({name, d, std::move(shape), {}});
    }
    std::vector<qs::SafetensorsTensor> view() const
    {
        auto out = tensors;
        for (size_t i = 0; i < out.size(); ++i)
            out[i].data = bytesOf(storage[i]);
        return out;
    }
};

void compareWithSet(const qs::Checkpoint& c, const TensorSet& set)
{
    QCOMPARE(c.tensors.size(), set.tensors.size());
    for (size_t i = 0; i < set.tensors.size(); ++i) {
        const auto* t = findTensor(c, set.tensors[i].name);
        QVERIFY2(t, set.tensors[i].name.c_str());
        QCOMPARE(t->dtype, set.tensors[i].dtype);
        QCOMPARE(t->shape, set.tensors[i].shape);
        const auto b = c.bytes(*t);
        QVERIFY(std::equal(b.begin(), b.end(), set.storage[i].begin(), set.storage[i].end()));
    }
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
private slots:
    void fixtures_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < kFixtures.size(); ++i)
            QTest::addRow("%s", kFixtures[i].path) << int(i);
    }
    void fixtures()
    {
        QFETCH(int, index);
        const FixtureFile& fx = kFixtures[size_t(index)];
        const std::string path = qstest::fixture(QStringLiteral("safetensors/") + QLatin1String(fx.path)).toStdString();
        const Snapshot before = snapshot(path);
        qs::Checkpoint c;
        qs::readSafetensorsFile(c, path);
        QCOMPARE(c.files.size(), size_t(1));
        QCOMPARE(c.mappedFile(0).size(), fx.bytes);
        QCOMPARE(c.tensors.size(), fx.tensors.size());
        for (const auto& e : fx.tensors) {
            const auto* t = findTensor(c, e.name);
            QVERIFY2(t, e.name);
            QCOMPARE(t->typeName, std::string(e.dtype));
            QCOMPARE(qs::dtypeName(t->dtype), std::string_view(e.dtype));
            QCOMPARE(t->shape, e.shape);
            QCOMPARE(t->nbytes, expectedBytes(t->dtype, e.shape));
            QCOMPARE(t->file, 0u);
        }
        // Tensors are listed in data order and tile the data section up to the end of the file.
        for (size_t i = 1; i < c.tensors.size(); ++i)
            QCOMPARE(c.tensors[i].offset, c.tensors[i - 1].offset + c.tensors[i - 1].nbytes);
        QCOMPARE(c.tensors.back().offset + c.tensors.back().nbytes, fx.bytes);
        const uint64_t headerLength = c.tensors.front().offset - 8;
        QCOMPARE(headerLength % 8, uint64_t(0)); // the fixtures' writer pads like the reference
        QVERIFY(c.meta("format"));
        QCOMPARE(c.meta("format")->toDisplayString(), std::string("pt"));
        QCOMPARE(c.metadata.size(), size_t(1));
        QVERIFY(c.notes.empty());
        QVERIFY(snapshot(path) == before);
    }

    void fixtureConfigs_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("quantizeConfigFile");
        QTest::addColumn<QString>("quantMethod");
        for (const auto& fx : kFixtures) {
            const QString p = QLatin1String(fx.path);
            if (!p.endsWith(QLatin1String("/model.safetensors")))
                continue;
            const QString variant = p.section(QLatin1Char('/'), 0, 0);
            QString file, method;
            if (variant.startsWith(QLatin1String("gptq"))) {
                file = QStringLiteral("quantize_config.json");
                method = QStringLiteral("gptq");
            } else if (variant.startsWith(QLatin1String("awq"))) {
                file = QStringLiteral("quant_config.json");
                method = QStringLiteral("awq");
            } else if (variant.startsWith(QLatin1String("bnb"))) {
                method = QStringLiteral("bitsandbytes");
            } else {
                method = QStringLiteral("compressed-tensors");
            }
            QTest::addRow("%s", qPrintable(variant)) << variant << file << method;
        }
    }
    void fixtureConfigs()
    {
        QFETCH(QString, variant);
        QFETCH(QString, quantizeConfigFile);
        QFETCH(QString, quantMethod);
        const auto c = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/%1/model.safetensors").arg(variant)).toStdString());
        QCOMPARE(c->container, qs::Container::Safetensors);
        const QJsonObject qc = c->config.value(QStringLiteral("quantization_config")).toObject();
        QCOMPARE(qc.value(QStringLiteral("quant_method")).toString(), quantMethod);
        QCOMPARE(QString::fromStdString(c->quantizeConfigFile), quantizeConfigFile);
        QCOMPARE(c->quantizeConfig.isEmpty(), quantizeConfigFile.isEmpty());
        if (quantMethod == QLatin1String("gptq") || quantMethod == QLatin1String("awq")) {
            const QString bitsKey =
                quantMethod == QLatin1String("gptq") ? QStringLiteral("bits") : QStringLiteral("w_bit");
            QCOMPARE(c->quantizeConfig.value(bitsKey).toInt(), qc.value(QStringLiteral("bits")).toInt());
        }
        QVERIFY(c->notes.empty());
    }

    // The exact bytes the reference writer produces: sorted by dtype rank (descending),
    // then name; compact JSON with __metadata__ first; spaces up to a multiple of 8.
    void writerLayout()
    {
        QTemporaryDir dir;
        TensorSet set;
        set.add("c", qs::DType::U8, {3}, 1);
        set.add("b", qs::DType::F16, {2}, 2);
        set.add("a", qs::DType::F16, {1}, 3);
        set.add("z", qs::DType::F32, {}, 4);
        const std::string path = (dir.path() + QStringLiteral("/w.safetensors")).toStdString();
        qs::writeSafetensors(path, set.view(), {{"format", "pt"}});
        const std::string header =
            R"({"__metadata__":{"format":"pt"},"z":{"dtype":"F32","shape":[],"data_offsets":[0,4]},)"
            R"("a":{"dtype":"F16","shape":[1],"data_offsets":[4,6]},"b":{"dtype":"F16","shape":[2],"data_offsets":[6,10]},)"
            R"("c":{"dtype":"U8","shape":[3],"data_offsets":[10,13]}})";
        const std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
        QByteArray expected = QByteArray::fromStdString(le64(padded.size()) + padded);
        for (int i : {3, 2, 1, 0})
            expected.append(reinterpret_cast<const char*>(set.storage[size_t(i)].data()),
                            qsizetype(set.storage[size_t(i)].size()));
        QCOMPARE(readAll(path), expected);
        // No temporary file is left behind.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("w.safetensors")});
    }

    void roundTripEveryDType()
    {
        QTemporaryDir dir;
        TensorSet set;
        quint32 seed = 10;
        for (auto d : kAllDTypes)
            set.add("t." + std::string(qs::dtypeName(d)), d, {3, 8}, seed++);
        set.add("scalar", qs::DType::U8, {}, seed++);
        set.add("empty", qs::DType::F32, {0, 5}, seed++);
        set.add("name with \"quotes\", \\ and ünïcödé", qs::DType::F16, {2}, seed++);
        const std::map<std::string, std::string> meta{
            {"format", "pt"}, {"text", "tab\tnewline\n\"q\" é"}, {"empty", ""}};
        const std::string path = (dir.path() + QStringLiteral("/all.safetensors")).toStdString();
        qs::writeSafetensors(path, set.view(), meta);

        qs::Checkpoint c;
        qs::readSafetensorsFile(c, path);
        compareWithSet(c, set);
        QVERIFY(c.notes.empty());
        QCOMPARE(c.metadata.size(), meta.size());
        for (const auto& [k, v] : meta) {
            QVERIFY(c.meta(k));
            QCOMPARE(std::get<std::string>(c.meta(k)->value), v);
        }
        // Data starts 8-aligned and every tensor is aligned to its element size.
        const uint64_t dataStart = c.tensors.front().offset;
        QCOMPARE(dataStart % 8, uint64_t(0));
        for (const auto& t : c.tensors)
            if (qs::dtypeBits(t.dtype) >= 8)
                QCOMPARE((t.offset - dataStart) % (qs::dtypeBits(t.dtype) / 8), uint64_t(0));

        // Writing what was read gives the same file, byte for byte.
        std::vector<qs::SafetensorsTensor> again;
        for (const auto& t : c.tensors)
            again.push_back({std::string(t.name), t.dtype, t.shape, c.bytes(t)});
        const std::string path2 = (dir.path() + QStringLiteral("/again.safetensors")).toStdString();
        qs::writeSafetensors(path2, again, meta);
        QCOMPARE(readAll(path2), readAll(path));
    }

    void roundTripFixtures()
    {
        QTemporaryDir dir;
        for (const auto& fx : kFixtures) {
            const std::string path =
                qstest::fixture(QStringLiteral("safetensors/") + QLatin1String(fx.path)).toStdString();
            qs::Checkpoint c;
            qs::readSafetensorsFile(c, path);
            std::vector<qs::SafetensorsTensor> tensors;
            for (const auto& t : c.tensors)
                tensors.push_back({std::string(t.name), t.dtype, t.shape, c.bytes(t)});
            std::map<std::string, std::string> meta;
            for (const auto& [k, v] : c.metadata)
                meta.emplace(k, std::get<std::string>(v.value));
            const std::string out = (dir.path() + QStringLiteral("/rt.safetensors")).toStdString();
            qs::writeSafetensors(out, tensors, meta);
            qs::Checkpoint r;
            qs::readSafetensorsFile(r, out);
            QCOMPARE(r.tensors.size(), c.tensors.size());
            QCOMPARE(r.mappedFile(0).size(),
                     c.mappedFile(0).size() - c.tensors.front().offset + r.tensors.front().offset);
            for (const auto& t : c.tensors) {
                const auto* u = findTensor(r, std::string(t.name));
                QVERIFY2(u, std::string(t.name).c_str());
                QCOMPARE(u->dtype, t.dtype);
                QCOMPARE(u->shape, t.shape);
                const auto a = c.bytes(t), b = r.bytes(*u);
                QVERIFY2(std::equal(a.begin(), a.end(), b.begin(), b.end()), std::string(t.name).c_str());
            }
            QCOMPARE(r.metadata.size(), c.metadata.size());
            QCOMPARE(r.meta("format")->toDisplayString(), std::string("pt"));
        }
    }

    void shardedFolderRoundTrip()
    {
        QTemporaryDir dir;
        TensorSet a, b, c;
        a.add("model.layers.0.mlp.down_proj.qweight", qs::DType::I32, {32, 128}, 1);
        a.add("model.layers.0.mlp.down_proj.qzeros", qs::DType::I32, {2, 16}, 2);
        b.add("model.layers.0.mlp.down_proj.scales", qs::DType::F16, {2, 128}, 3);
        b.add("model.layers.0.mlp.down_proj.g_idx", qs::DType::I32, {256}, 4);
        c.add("lm_head.weight", qs::DType::BF16, {16, 8}, 5);
        const std::vector<qs::SafetensorsShard> shards{{qs::shardFileName(0, 3), a.view()},
                                                       {qs::shardFileName(1, 3), b.view()},
                                                       {qs::shardFileName(2, 3), c.view()}};
        QCOMPARE(shards[1].fileName, std::string("model-00002-of-00003.safetensors"));
        const std::string d = dir.path().toStdString();
        qs::writeSafetensorsSharded(d, shards, {{"format", "pt"}});
        writeRaw(dir, "config.json", R"({"architectures": ["LlamaForCausalLM"], "big": 18446744073709551615})");

        const auto ckpt = qs::openCheckpoint(d);
        QCOMPARE(ckpt->files.size(), size_t(3));
        QCOMPARE(ckpt->tensors.size(), size_t(5));
        for (const TensorSet* s : {&a, &b, &c})
            for (size_t i = 0; i < s->tensors.size(); ++i) {
                const auto* t = ckpt->find(s->tensors[i].name);
                QVERIFY(t);
                QCOMPARE(t->shape, s->tensors[i].shape);
                const auto bytes = ckpt->bytes(*t);
                QVERIFY(std::equal(bytes.begin(), bytes.end(), s->storage[i].begin(), s->storage[i].end()));
            }
        QCOMPARE(ckpt->tensors[ckpt->indexOf("lm_head.weight")].file, 2u);
        QCOMPARE(ckpt->config.value(QStringLiteral("architectures")).toArray().at(0).toString(),
                 QStringLiteral("LlamaForCausalLM"));
        QCOMPARE(ckpt->meta("format")->toDisplayString(), std::string("pt"));
        QVERIFY2(ckpt->notes.empty(), ckpt->notes.empty() ? "" : ckpt->notes.front().text().c_str());

        const QJsonObject index = QJsonDocument::fromJson(readAll(d + "/model.safetensors.index.json")).object();
        uint64_t total = 0;
        for (const auto& t : ckpt->tensors)
            total += t.nbytes;
        QCOMPARE(uint64_t(index[QStringLiteral("metadata")].toObject()[QStringLiteral("total_size")].toInteger()),
                 total);
        const QJsonObject map = index[QStringLiteral("weight_map")].toObject();
        QCOMPARE(map.size(), 5);
        QCOMPARE(map[QStringLiteral("model.layers.0.mlp.down_proj.scales")].toString(),
                 QStringLiteral("model-00002-of-00003.safetensors"));
    }

    void folderWithoutIndex()
    {
        QTemporaryDir dir;
        TensorSet a, b;
        a.add("x", qs::DType::F32, {4}, 1);
        b.add("y", qs::DType::F16, {4}, 2);
        qs::writeSafetensors((dir.path() + QStringLiteral("/b.safetensors")).toStdString(), b.view());
        qs::writeSafetensors((dir.path() + QStringLiteral("/a.safetensors")).toStdString(), a.view());
        writeRaw(dir, "quant_config.json", R"({"w_bit": 4, "q_group_size": 128})");
        // Two unrelated files are two checkpoints (tst_folder); chosen together they read as one.
        QVERIFY_THROWS_EXCEPTION(qs::FolderChoiceError, qs::openCheckpoint(dir.path().toStdString()));
        const auto c = qs::openCheckpoint(dir.path().toStdString(), {"a.safetensors", "b.safetensors"});
        QCOMPARE(c->files.size(), size_t(2));
        QVERIFY(QString::fromStdString(c->files[0]).endsWith(QLatin1String("/a.safetensors")));
        QCOMPARE(c->tensors[0].name, std::string("x"));
        QCOMPARE(c->tensors[1].name, std::string("y"));
        QCOMPARE(c->tensors[1].file, 1u);
        QCOMPARE(c->quantizeConfigFile, std::string("quant_config.json"));
        QCOMPARE(c->quantizeConfig.value(QStringLiteral("w_bit")).toInt(), 4);
    }

    void badConfigIsANote()
    {
        QTemporaryDir dir;
        TensorSet a;
        a.add("x", qs::DType::F32, {4}, 1);
        qs::writeSafetensors((dir.path() + QStringLiteral("/model.safetensors")).toStdString(), a.view());
        writeRaw(dir, "config.json", R"({"a": 1,})");
        writeRaw(dir, "quantize_config.json", "[1]");
        const auto c = qs::openCheckpoint(dir.path().toStdString());
        QCOMPARE(c->tensors.size(), size_t(1));
        QVERIFY(c->config.isEmpty());
        QVERIFY(c->quantizeConfig.isEmpty());
        QCOMPARE(c->notes.size(), size_t(2));
        VERIFY_MESSAGE(QString::fromStdString(c->notes[0].text()), QStringLiteral("config.json: invalid JSON"));
        VERIFY_MESSAGE(QString::fromStdString(c->notes[1].text()), QStringLiteral("quantize_config.json"));
    }

    // Accepted by the reference reader, worth a warning.
    void warnings_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QString>("note");
        const QByteArray t = R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
        QTest::addRow("leading whitespace") << " {" + t + "}" << QStringLiteral("not '{'");
        QTest::addRow("tab padding") << "{" + t + "}\t\n" << QStringLiteral("whitespace other than spaces");
        QTest::addRow("unknown field") << QByteArray(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}})")
                                       << QStringLiteral("field 'x'");
        QTest::addRow("empty name") << QByteArray(R"({"":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})")
                                    << QStringLiteral("empty name");
    }
    void warnings()
    {
        QFETCH(QByteArray, header);
        QFETCH(QString, note);
        QTemporaryDir dir;
        const std::string path =
            writeRaw(dir, "w.safetensors", QByteArray::fromStdString(le64(header.size())) + header + "X");
        qs::Checkpoint c;
        qs::readSafetensorsFile(c, path);
        QCOMPARE(c.tensors.size(), size_t(1));
        QCOMPARE(c.notes.size(), size_t(1));
        VERIFY_MESSAGE(QString::fromStdString(c.notes[0].text()), note);
        VERIFY_MESSAGE(QString::fromStdString(c.notes[0].text()), QString::fromStdString(path));
    }

    void acceptsEdgeCases()
    {
        QTemporaryDir dir;
        // No tensors at all, sub-byte dtypes with whole bytes, zero-size tensors sharing an offset.
        const QByteArray headers[] = {
            "{}",
            R"({"__metadata__":{}})",
            R"({"f4":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]},"f6":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[3,6]}})",
            R"({"e1":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"e2":{"dtype":"I64","shape":[3,0],"data_offsets":[0,0]},"x":{"dtype":"U8","shape":[],"data_offsets":[0,1]}})",
        };
        const int dataBytes[] = {0, 0, 6, 1};
        for (size_t i = 0; i < std::size(headers); ++i) {
            const std::string path = writeRaw(dir, "ok.safetensors",
                                              QByteArray::fromStdString(le64(headers[i].size())) + headers[i]
                                                  + QByteArray(dataBytes[i], 'd'));
            QVERIFY2(readError(path).isEmpty(), qPrintable(readError(path)));
        }
    }

    // A 6 GiB sparse file: listing it reads the header only, never a data page.
    void hugeSparseFileListsWithoutTouchingData()
    {
        QTemporaryDir dir;
        const uint64_t tensorBytes = uint64_t(2) << 30;
        std::string header = "{";
        for (int i = 0; i < 3; ++i) {
            const uint64_t begin = uint64_t(i) * tensorBytes;
            header += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":["
                + std::to_string(tensorBytes / 4 / 1024) + ",1024],\"data_offsets\":[" + std::to_string(begin) + ","
                + std::to_string(begin + tensorBytes) + "]}";
        }
        header += "}";
        header.append((8 - header.size() % 8) % 8, ' ');
        const std::string path =
            writeRaw(dir, "huge.safetensors", QByteArray::fromStdString(le64(header.size()) + header));
        QVERIFY(QFile::resize(QString::fromStdString(path), qint64(8 + header.size() + 3 * tensorBytes)));
        qs::Checkpoint c;
        qs::readSafetensorsFile(c, path);
        QCOMPARE(c.tensors.size(), size_t(3));
        QCOMPARE(c.tensors[2].offset, 8 + header.size() + 2 * tensorBytes);
        QCOMPARE(c.tensors[2].shape, (std::vector<uint64_t>{tensorBytes / 4 / 1024, 1024}));
        // No page of the data section (beyond the one the header ends in) is resident.
        const auto whole = c.mappedFile(0).bytes();
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        const size_t firstDataPage = (8 + header.size() + page - 1) / page * page;
        std::vector<unsigned char> resident((whole.size() - firstDataPage + page - 1) / page);
        QCOMPARE(
            mincore(const_cast<uint8_t*>(whole.data()) + firstDataPage, whole.size() - firstDataPage, resident.data()),
            0);
        QCOMPARE(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }), 0);
    }

    void badHeader_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<int>("dataBytes");
        QTest::addColumn<qint64>("lengthField"); // -1: the header's own length
        QTest::addColumn<QStringList>("expected");
        auto tensor = [](const char* name, const char* dtype, const char* shape, const char* offsets) {
            return QByteArray("\"") + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape
                + ",\"data_offsets\":" + offsets + "}";
        };
        const QByteArray ok = "{" + tensor("w", "F32", "[2]", "[0,8]") + "}";
        QTest::addRow("length past end of file")
            << ok << 8 << qint64(ok.size() + 9) << QStringList{"invalid header length"};
        QTest::addRow("header too large") << ok << 8 << qint64(100000001) << QStringList{"header too large"};
        QTest::addRow("header length max") << ok << 8 << qint64(-2) << QStringList{"header too large"};
        // Plain literals: moc's tokenizer mis-reads raw strings with unbalanced braces.
        for (const char* bad : {"", "{", "{\"a\":1,}", "{\"a\" 1}", "{'a':1}", "{\"\xff\":1}", "{\"\\ud800\":1}",
                                "{\"a\x01\":1}", "{}x", "{\"a\":tru}", "{\"a\":01}", "\xef\xbb\xbf{}"})
            QTest::addRow("invalid JSON %s", QByteArray(bad).toPercentEncoding().constData())
                << QByteArray(bad) << 0 << qint64(-1) << QStringList{"header is not valid JSON", "of the header"};
        for (const char* bad : {"[]", R"("x")", "1", "null"})
            QTest::addRow("non-object %s", bad) << QByteArray(bad) << 0 << qint64(-1) << QStringList{"not an object"};
        QTest::addRow("too deep") << QByteArray("[").repeated(40) + QByteArray("]").repeated(40) << 0 << qint64(-1)
                                  << QStringList{"nesting deeper"};
        QTest::addRow("offsets out of range") << "{" + tensor("w", "F32", "[4]", "[0,16]") + "}" << 8 << qint64(-1)
                                              << QStringList{"'w'", "data_offsets", "past the 8 bytes"};
        QTest::addRow("overlap") << "{" + tensor("a", "F32", "[2]", "[0,8]") + "," + tensor("b", "F32", "[2]", "[4,12]")
                + "}" << 12 << qint64(-1)
                                 << QStringList{"'b'", "data_offsets [4, 12]", "overlap tensor 'a'"};
        QTest::addRow("gap") << "{" + tensor("a", "F32", "[1]", "[0,4]") + "," + tensor("b", "F32", "[1]", "[8,12]")
                + "}" << 12 << qint64(-1)
                             << QStringList{"'b'", "data_offsets [8, 12]", "gap"};
        QTest::addRow("first not at 0") << "{" + tensor("a", "F32", "[1]", "[4,8]") + "}" << 8 << qint64(-1)
                                        << QStringList{"'a'", "data_offsets", "gap"};
        QTest::addRow("end before begin")
            << "{" + tensor("a", "F32", "[1]", "[0,4]") + "," + tensor("b", "U8", "[0]", "[4,2]") + "}" << 4
            << qint64(-1) << QStringList{"'b'", "end before"};
        QTest::addRow("size not shape*dtype") << "{" + tensor("a", "F32", "[2]", "[0,12]") + "}" << 12 << qint64(-1)
                                              << QStringList{"'a'", "data_offsets", "needs 8"};
        QTest::addRow("trailing bytes") << "{" + tensor("a", "F32", "[1]", "[0,4]") + "}" << 9 << qint64(-1)
                                        << QStringList{"data not fully covered", "5 more bytes"};
        QTest::addRow("unknown dtype") << "{" + tensor("a", "Q4", "[1]", "[0,4]") + "}" << 4 << qint64(-1)
                                       << QStringList{"'a'", "unknown dtype 'Q4'"};
        QTest::addRow("element count overflow") << "{" + tensor("a", "F32", "[4294967296,4294967296,2]", "[0,0]") + "}"
                                                << 0 << qint64(-1) << QStringList{"'a'", "element count overflows"};
        QTest::addRow("bit count overflow") << "{" + tensor("a", "U64", "[2305843009213693952,4]", "[0,0]") + "}" << 0
                                            << qint64(-1) << QStringList{"'a'", "bit count overflows"};
        QTest::addRow("misaligned F4") << "{" + tensor("a", "F4", "[3]", "[0,1]") + "}" << 1 << qint64(-1)
                                       << QStringList{"'a'", "misaligned", "12 bits"};
        QTest::addRow("negative shape") << "{" + tensor("a", "F32", "[-1]", "[0,0]") + "}" << 0 << qint64(-1)
                                        << QStringList{"'a'", "shape[0] is -1"};
        QTest::addRow("float shape") << "{" + tensor("a", "F32", "[1.5]", "[0,4]") + "}" << 4 << qint64(-1)
                                     << QStringList{"'a'", "shape[0] is number"};
        QTest::addRow("shape beyond int64") << "{" + tensor("a", "F32", "[0,9223372036854775808]", "[0,0]") + "}" << 0
                                            << qint64(-1) << QStringList{"'a'", "shape[1]", "signed 64-bit"};
        QTest::addRow("shape beyond uint64") << "{" + tensor("a", "F32", "[18446744073709551616]", "[0,0]") + "}" << 0
                                             << qint64(-1) << QStringList{"'a'", "shape[0] is number"};
        QTest::addRow("hostile shape length")
            << "{" + tensor("a", "U8", "[" + QByteArray("1,").repeated(70000) + "1]", "[0,1]") + "}" << 1 << qint64(-1)
            << QStringList{"not valid JSON", "array with more than 65536"};
        QTest::addRow("schema error then broken JSON") << "{" + tensor("a", "Q4", "[1]", "[0,1]")
                + ",}" << 1 << qint64(-1) << QStringList{"not valid JSON", "expected a quoted key"};
        QTest::addRow("shape not array") << "{" + tensor("a", "F32", "3", "[0,12]") + "}" << 12 << qint64(-1)
                                         << QStringList{"'a'", "shape is a integer"};
        QTest::addRow("offsets wrong arity") << "{" + tensor("a", "F32", "[1]", "[0,4,8]") + "}" << 4 << qint64(-1)
                                             << QStringList{"'a'", "data_offsets must be"};
        QTest::addRow("offsets negative") << "{" + tensor("a", "F32", "[1]", "[-4,0]") + "}" << 4 << qint64(-1)
                                          << QStringList{"'a'", "data_offsets[0] is -4"};
        QTest::addRow("missing dtype") << QByteArray(R"({"a":{"shape":[1],"data_offsets":[0,4]}})") << 4 << qint64(-1)
                                       << QStringList{"'a'", "missing field 'dtype'"};
        QTest::addRow("missing offsets") << QByteArray(R"({"a":{"dtype":"F32","shape":[1]}})") << 4 << qint64(-1)
                                         << QStringList{"'a'", "missing field 'data_offsets'"};
        QTest::addRow("dtype not string") << "{" + tensor("a", "7", "[1]", "[0,4]").replace("\"7\"", "7") + "}" << 4
                                          << qint64(-1) << QStringList{"'a'", "dtype is a integer"};
        QTest::addRow("entry not object")
            << QByteArray(R"({"a":[1]})") << 0 << qint64(-1) << QStringList{"'a'", "not an object"};
        QTest::addRow("duplicate tensor")
            << "{" + tensor("a", "U8", "[1]", "[0,1]") + "," + tensor("a", "U8", "[1]", "[1,2]") + "}" << 2
            << qint64(-1) << QStringList{"duplicate tensor name 'a'"};
        QTest::addRow("duplicate field") << QByteArray(
            R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})")
                                         << 1 << qint64(-1) << QStringList{"duplicate key \"dtype\""};
        QTest::addRow("metadata not string") << QByteArray(R"({"__metadata__":{"format":"pt","n":1}})") << 0
                                             << qint64(-1) << QStringList{"__metadata__ 'n'", "not a string"};
        QTest::addRow("metadata not object")
            << QByteArray(R"({"__metadata__":"pt"})") << 0 << qint64(-1) << QStringList{"__metadata__ is a string"};
    }
    void badHeader()
    {
        QFETCH(QByteArray, header);
        QFETCH(int, dataBytes);
        QFETCH(qint64, lengthField);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        uint64_t n = lengthField == -1 ? uint64_t(header.size()) : uint64_t(lengthField);
        if (lengthField == -2)
            n = ~uint64_t(0);
        const std::string path = writeRaw(dir, "bad.safetensors",
                                          QByteArray::fromStdString(le64(n)) + header + QByteArray(dataBytes, '\x5a'));
        const Snapshot before = snapshot(path);
        const QString msg = readError(path);
        QVERIFY2(!msg.isEmpty(), "the reader accepted a bad file");
        QVERIFY2(msg.startsWith(QString::fromStdString(path) + QStringLiteral(": ")), qPrintable(msg));
        for (const QString& e : expected)
            VERIFY_MESSAGE(msg, e);
        QVERIFY(snapshot(path) == before);
    }

    // Every cut point through the length field, the header and the first data bytes, then
    // a sample of cut points through the data.
    void truncatedEverywhere()
    {
        const std::string source =
            qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors")).toStdString();
        const QByteArray whole = readAll(source);
        QCOMPARE(whole.size(), 23424);
        uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | uint8_t(whole[i]);
        QTemporaryDir dir;
        std::vector<qsizetype> cuts;
        for (qsizetype cut = 0; cut < qsizetype(8 + n + 64); ++cut)
            cuts.push_back(cut);
        for (qsizetype cut = qsizetype(8 + n + 64); cut < whole.size(); cut += 97)
            cuts.push_back(cut);
        cuts.push_back(whole.size() - 1);
        for (const qsizetype cut : cuts) {
            const std::string path = writeRaw(dir, "cut.safetensors", whole.left(cut));
            const QString msg = readError(path);
            const QString where = QStringLiteral("cut at %1: %2").arg(cut).arg(msg);
            QVERIFY2(msg.startsWith(QString::fromStdString(path) + QStringLiteral(": ")), qPrintable(where));
            const char* field = cut == 0 ? "empty file"
                : cut < 8                ? "header too small"
                : cut < qsizetype(8 + n) ? "invalid header length"
                                         : "data_offsets of tensor 'model.layers.0.self_attn.q_proj.scales'";
            QVERIFY2(msg.contains(QLatin1String(field)), qPrintable(where));
        }
    }

    void emptyFile()
    {
        QTemporaryDir dir;
        const std::string path = writeRaw(dir, "empty.safetensors", {});
        const QString msg = openError(path);
        QVERIFY(msg.startsWith(QString::fromStdString(path)));
        VERIFY_MESSAGE(msg, QStringLiteral("empty file"));
    }

    void folderWithoutCheckpoint()
    {
        QTemporaryDir dir;
        writeRaw(dir, "config.json", "{}");
        writeRaw(dir, "notes.txt", "hello");
        const QString msg = openError(dir.path().toStdString());
        VERIFY_MESSAGE(msg, dir.path());
        VERIFY_MESSAGE(msg, QStringLiteral("no checkpoint in this folder"));
    }

    void badIndex_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("blamedFile");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("missing shard") << "delete-shard"
                                       << "model.safetensors.index.json"
                                       << QStringList{"shard 'model-00002-of-00002.safetensors'", "does not exist"};
        QTest::addRow("tensor missing from map")
            << "drop-entry"
            << "model-00002-of-00002.safetensors" << QStringList{"tensor 'b.x'", "missing from the weight_map"};
        QTest::addRow("tensor mapped to other shard")
            << "remap"
            << "model-00002-of-00002.safetensors"
            << QStringList{"tensor 'b.x'", "maps it to 'model-00001-of-00002.safetensors'"};
        QTest::addRow("map names absent tensor")
            << "extra-entry"
            << "model.safetensors.index.json" << QStringList{"tensor 'ghost'", "does not hold it"};
        QTest::addRow("tensor in two shards")
            << "duplicate"
            << "model-00002-of-00002.safetensors" << QStringList{"tensor 'a.x'", "two shards"};
        QTest::addRow("shard path escapes")
            << "escape"
            << "model.safetensors.index.json" << QStringList{"tensor 'a.x'", "not a file name"};
        QTest::addRow("invalid index JSON") << "garbage"
                                            << "model.safetensors.index.json" << QStringList{"invalid JSON", "at byte"};
        QTest::addRow("no weight_map") << "no-map"
                                       << "model.safetensors.index.json" << QStringList{"missing field 'weight_map'"};
    }
    void badIndex()
    {
        QFETCH(QString, edit);
        QFETCH(QString, blamedFile);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        TensorSet a, b;
        a.add("a.x", qs::DType::F32, {4}, 1);
        b.add("b.x", qs::DType::F32, {4}, 2);
        b.add("b.y", qs::DType::F32, {1}, 3);
        qs::writeSafetensorsSharded(d, {{qs::shardFileName(0, 2), a.view()}, {qs::shardFileName(1, 2), b.view()}});
        const std::string indexPath = d + "/model.safetensors.index.json";
        QJsonObject index = QJsonDocument::fromJson(readAll(indexPath)).object();
        QJsonObject map = index[QStringLiteral("weight_map")].toObject();
        QCOMPARE(map.size(), 3);
        if (edit == QLatin1String("delete-shard"))
            QVERIFY(QFile::remove(dir.filePath(QStringLiteral("model-00002-of-00002.safetensors"))));
        else if (edit == QLatin1String("drop-entry"))
            map.remove(QStringLiteral("b.x"));
        else if (edit == QLatin1String("remap"))
            map[QStringLiteral("b.x")] = QStringLiteral("model-00001-of-00002.safetensors");
        else if (edit == QLatin1String("extra-entry"))
            map[QStringLiteral("ghost")] = QStringLiteral("model-00001-of-00002.safetensors");
        else if (edit == QLatin1String("escape"))
            map[QStringLiteral("a.x")] = QStringLiteral("../model-00001-of-00002.safetensors");
        else if (edit == QLatin1String("duplicate")) {
            // Rewrite shard 2 so it also holds a.x, as a broken converter might.
            TensorSet b2;
            b2.add("b.x", qs::DType::F32, {4}, 2);
            b2.add("b.y", qs::DType::F32, {1}, 3);
            b2.add("a.x", qs::DType::F32, {4}, 1);
            qs::writeSafetensors(d + "/model-00002-of-00002.safetensors", b2.view());
        }
        index[QStringLiteral("weight_map")] = map;
        if (edit == QLatin1String("no-map"))
            index.remove(QStringLiteral("weight_map"));
        QByteArray text = QJsonDocument(index).toJson();
        if (edit == QLatin1String("garbage"))
            text.chop(3);
        writeRaw(dir, "model.safetensors.index.json", text);

        std::map<std::string, Snapshot> before;
        for (const QString& f : QDir(dir.path()).entryList(QDir::Files))
            before[f.toStdString()] = snapshot(d + "/" + f.toStdString());
        const QString msg = openError(d);
        QVERIFY2(msg.startsWith(dir.filePath(blamedFile) + QStringLiteral(": ")), qPrintable(msg));
        for (const QString& e : expected)
            VERIFY_MESSAGE(msg, e);
        for (const auto& [f, s] : before)
            QVERIFY(snapshot(d + "/" + f) == s);
    }

    void indexNotes()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        TensorSet a;
        a.add("a.x", qs::DType::F32, {4}, 1);
        qs::writeSafetensorsSharded(d, {{qs::shardFileName(0, 1), a.view()}});
        QByteArray text = readAll(d + "/model.safetensors.index.json");
        text.replace("\"total_size\": 16", "\"total_size\": 17");
        writeRaw(dir, "model.safetensors.index.json", text);
        qs::writeSafetensors(d + "/stray.safetensors", a.view());
        const auto c = qs::openCheckpoint(d);
        QCOMPARE(c->tensors.size(), size_t(1));
        QCOMPARE(c->notes.size(), size_t(1));
        VERIFY_MESSAGE(QString::fromStdString(c->notes[0].text()), QStringLiteral("total_size is 17"));
        // A file the index does not name is left out (tst_folder), listed rather than noted.
        QCOMPARE(c->openedAs, std::string("model.safetensors.index.json"));
        QCOMPARE(c->leftOut, std::vector<std::string>{"stray.safetensors"});
    }

    void writerRejects()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/w.safetensors")).toStdString();
        std::vector<uint8_t> bytes(12);
        auto message = [&](const std::vector<qs::SafetensorsTensor>& t) {
            try {
                qs::writeSafetensors(path, t);
            } catch (const qs::Error& e) {
                return QString::fromUtf8(e.what());
            }
            return QString();
        };
        QString m = message({{"a", qs::DType::F32, {2}, bytesOf(bytes)}});
        VERIFY_MESSAGE(m, QStringLiteral("tensor 'a': data holds 12 bytes"));
        m = message({{"a", qs::DType::U8, {12}, bytesOf(bytes)}, {"a", qs::DType::U8, {12}, bytesOf(bytes)}});
        VERIFY_MESSAGE(m, QStringLiteral("duplicate tensor name 'a'"));
        m = message({{"bad\xff", qs::DType::U8, {12}, bytesOf(bytes)}});
        VERIFY_MESSAGE(m, QStringLiteral("not valid UTF-8"));
        m = message({{"g", qs::DType::Ggml, {12}, bytesOf(bytes)}});
        VERIFY_MESSAGE(m, QStringLiteral("cannot be stored"));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(path)));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
