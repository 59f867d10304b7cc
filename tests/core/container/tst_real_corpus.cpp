// The regression corpus: every file under ../shared/fixtures/real (written by upstream tools,
// see SOURCES.md there) opens, or is refused with a message that names the file and says
// what is wrong. A file that opens lists its tensors, every decodable weight dequantizes, and
// verify finds no error (but says when nothing could be checked). A new file in the corpus fails `everyFileIsListed`
// until it is given an expectation here.
#include "analysis/verify.h"
#include "base/error.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"
#include "testsupport.h"

#include <QDirIterator>
#include <QTest>

#include <set>

using namespace qs;

namespace {

struct Expectation {
    const char* file; // relative to fixtures/real
    const char* refused; // nullptr: opens; else words the error must hold
    const char* note = nullptr; // words a checkpoint note must hold
};

const std::vector<Expectation>& corpus()
{
    static const std::vector<Expectation> files = {
        {"LogAnalyzer-cvector/control_vector.gguf", nullptr},
        {"compressed-tensors/hadamards.v1.safetensors", nullptr},
        {"compressed-tensors/hadamards.v2.safetensors", nullptr},
        {"corrupted-negative-tests/llama-jni-bridge-utf8-mangled-vocab/ggml-vocab-bert-bge.gguf",
         "past the end of the file"},
        {"corrupted-negative-tests/llama-jni-bridge-utf8-mangled-vocab/ggml-vocab-llama-spm.gguf",
         "exceeds the 1 GiB limit"},
        {"generated-llama-quantize/stories260K-mix-IQ4_XS.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-Q2_K.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-Q3_K_M.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-Q4_K_M.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-Q5_K_M.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-Q6_K.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-TQ1_0.gguf", nullptr},
        {"generated-llama-quantize/stories260K-mix-TQ2_0.gguf", nullptr},
        {"generated-llama-quantize/stories260K-pure-BF16.gguf", nullptr},
        {"generated-llama-quantize/stories260K-pure-F16.gguf", nullptr},
        {"ggml-superpoint/superpoint.gguf", nullptr},
        {"hyllama/dummy.gguf", nullptr},
        {"llama.cpp/ggml-vocab-bert-bge.gguf", nullptr},
        {"llama.cpp/ggml-vocab-deepseek-coder.gguf", nullptr},
        {"llama.cpp/ggml-vocab-gpt-2.gguf", nullptr},
        {"llama.cpp/ggml-vocab-llama-spm.gguf", nullptr},
        {"llama.cpp/ggml-vocab-phi-3.gguf", nullptr},
        {"llama.cpp/ggml-vocab-starcoder.gguf", nullptr},
        // llama.cpp refuses it (duplicate key); a tool for finding out why opens it and says so.
        {"llama.cpp/history/ggml-vocab-dbrx.2024-05-07.gguf", nullptr,
         "metadata key 'general.file_type' appears twice: record 10 holds"},
        {"llama.cpp/history/ggml-vocab-falcon.v2.2023-09-18.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-gpt2.2023-12-22.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-llama.v1.2023-08-18.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-llama.v1.2023-08-19.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-llama.v3.2023-11-02.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-llama.v3.2024-04-26.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-stablelm-3b-4e1t.2023-10-22.gguf", nullptr},
        {"llama.cpp/history/ggml-vocab-stablelm.2024-05-17.gguf", nullptr},
        {"llama.cpp/history/nonstandard-test_writer.OBJ-kvtype.2024-02-06.gguf",
         "metadata key 'dict1': value type 13 is not a GGUF value type (0..12)"},
        {"llama.cpp/history/prerelease-example.FUGG.2023-07-28.gguf",
         "not a GGUF file: it starts with 'FUGG', not 'GGUF' ('FUGG' is the magic of pre-release GGUF files"},
        {"llama.cpp/history/prerelease-ggml-vocab-llama.FUGG.2023-08-17.gguf",
         "read as safetensors it fails as well: header too large"},
        // mx.save_safetensors writes "__metadata__": null.
        {"mlx-adapters/MLX-CLI.0000100_adapters.safetensors", nullptr},
        {"mlx-adapters/mlx-lm.test_dpo_adapters.adapters.safetensors", nullptr},
        {"mlx-examples/0000100_adapters.safetensors", nullptr},
        {"ollama/llama-2-tiny-random.gguf", nullptr},
        {"ollama/minicpm3-4b-model.safetensors", nullptr},
        {"peft-adapters/distilbert-imdb-lora.adapter_model.safetensors", nullptr},
        {"peft-adapters/gpt2-lora.adapter_model.safetensors", nullptr},
        {"python-gen-worker/stories260K.gguf", nullptr},
        {"safetensors-samples/B_upper.safetensors", nullptr},
        {"safetensors-samples/H_upper.safetensors", nullptr},
        {"safetensors-samples/I_upper.safetensors", nullptr},
        {"safetensors-samples/b.safetensors", nullptr},
        {"safetensors-samples/d.safetensors", nullptr},
        {"safetensors-samples/e.safetensors", nullptr},
        {"safetensors-samples/f.safetensors", nullptr},
        {"safetensors-samples/h.safetensors", nullptr},
        {"safetensors-samples/i.safetensors", nullptr},
        {"safetensors-samples/overall.safetensors", nullptr},
        {"stable-diffusion.cpp/taesd-decoder.gguf", nullptr},
    };
    return files;
}

QString realPath(const char* file)
{
    return qstest::fixture(QStringLiteral("real/") + QString::fromLatin1(file));
}

} // namespace

class TestRealCorpus : public QObject {
    Q_OBJECT
private slots:
    void everyFileIsListed()
    {
        std::set<QString> listed;
        for (const Expectation& e : corpus())
            listed.insert(QString::fromLatin1(e.file));
        const QString root = qstest::fixture(QStringLiteral("real"));
        QDirIterator it(root, {QStringLiteral("*.gguf"), QStringLiteral("*.safetensors")}, QDir::Files,
                        QDirIterator::Subdirectories);
        int files = 0;
        while (it.hasNext()) {
            const QString rel = QDir(root).relativeFilePath(it.next());
            QVERIFY2(listed.count(rel), qPrintable(rel + QStringLiteral(" has no expectation in this suite")));
            ++files;
        }
        QCOMPARE(size_t(files), listed.size());
    }

    void file_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < corpus().size(); ++i)
            QTest::addRow("%s", corpus()[i].file) << int(i);
    }
    void file()
    {
        QFETCH(int, index);
        const Expectation& e = corpus()[size_t(index)];
        const std::string path = realPath(e.file).toStdString();
        if (e.refused) {
            try {
                openCheckpoint(path);
            } catch (const Error& err) {
                const std::string msg = err.what();
                QVERIFY2(msg.rfind(path + ": ", 0) == 0, msg.c_str()); // names the file
                QVERIFY2(msg.find(e.refused) != std::string::npos, msg.c_str());
                return;
            }
            QFAIL("opened a file that must be refused");
        }
        const auto ck = openCheckpoint(path);
        QVERIFY(!ck->tensors.empty() || !ck->metadata.empty());
        if (e.note) {
            const bool noted = std::any_of(ck->notes.begin(), ck->notes.end(), [&](const Message& n) {
                return n.text().find(e.note) != std::string::npos;
            });
            QVERIFY2(noted, e.note);
        }
        for (const LogicalWeight& w : ck->weights)
            if (canDequantize(w.format))
                QCOMPARE(dequantizeWeight(*ck, w, bestSimdPath(), 1).size(), size_t(w.elementCount()));
        // No error, except that a file in which nothing could be checked (metadata only, like the
        // vocabulary GGUFs, or only float tensors) says so: "nothing-checked" is an error, since
        // "0 weights checked, 0 errors" would read as an all-clear (issue 14).
        const VerifyReport rep = verifyCheckpoint(*ck);
        for (const VerifyFinding& f : rep.findings)
            if (!f.warning && f.check != "nothing-checked")
                qWarning("%s: %s: %s", f.weight.c_str(), f.check.c_str(), f.message.text().c_str());
        const bool nothingChecked = rep.checked.empty();
        QCOMPARE(rep.errors(), size_t(nothingChecked ? 1 : 0));
        if (nothingChecked) {
            QCOMPARE(rep.findings.back().check, std::string("nothing-checked"));
            QCOMPARE(rep.findings.back().weight, path);
        }
    }
};

QTEST_GUILESS_MAIN(TestRealCorpus)
#include "tst_real_corpus.moc"
