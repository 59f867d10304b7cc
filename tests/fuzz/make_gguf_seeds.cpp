// Splits a GGUF file into one small GGUF per tensor (same metadata, one tensor each), so that
// fuzz_gguf mutates files of a few KiB that reach every ggml type, not one 600 KiB file.
// usage: make_gguf_seeds INPUT.gguf OUT_DIR
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "base/error.h"
#include "formats/opencheckpoint.h"

#include <algorithm>
#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_gguf_seeds INPUT.gguf OUT_DIR\n");
        return 2;
    }
    try {
        const auto ckpt = qs::openCheckpoint(argv[1]);
        size_t n = 0;
        for (const auto& t : ckpt->tensors) {
            qs::GgufTensor g;
            g.name = t.name;
            g.ggmlType = t.ggmlType;
            g.ne.assign(t.shape.rbegin(), t.shape.rend());
            g.data = ckpt->bytes(t);
            qs::writeGguf(std::string(argv[2]) + "/seed-" + std::to_string(n++) + ".gguf", ckpt->metadata, {g},
                          uint32_t(std::max(ckpt->ggufVersion, 1)));
        }
        std::printf("%zu seeds\n", n);
    } catch (const qs::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
