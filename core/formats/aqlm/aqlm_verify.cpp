// verify's checks of AQLM weights: the tensors as the kernel reads them (shapes, dtypes, every
// code inside its codebook), the code dtype aqlm packs for the index width, non-finite codebook
// entries (an entry no code selects never reaches the values the health scan reads), and the
// config values detection found to disagree with the tensors.
#include "formats/aqlm/aqlm.h"

#include "base/error.h"
#include "formats/verify_util.h"

#include <cmath>

namespace qs {

void verifyAqlmWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    Aqlm s;
    try {
        s = aqlmState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    // aqlm.utils.get_int_dtype: int8 up to 8 bits, int16 up to 16.
    const DType packed = s.bits <= 8 ? DType::I8 : DType::I16;
    if (s.codeType != packed)
        add("codes-dtype",
            Message(QT_TRANSLATE_NOOP("qs::Message", "codes are stored as %1; aqlm packs %2-bit indices as %3"),
                    {std::string(dtypeName(s.codeType)), std::to_string(s.bits), std::string(dtypeName(packed))}),
            true);
    const FloatView book(s.book, s.dtype, "codebooks");
    uint64_t bad = 0;
    for (uint64_t i = 0; i < book.size(); ++i)
        bad += !std::isfinite(book.at(i));
    if (bad)
        add("codebooks",
            Message(QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 codebook values are NaN or Inf"),
                    {std::to_string(bad), std::to_string(book.size())}));
    // The notes of aqlm_detect.cpp (verify itself files those about quant_method).
    for (const Message& note : w.notes)
        if (note.startsWith("config says %1 = %2, the AQLM tensors hold"))
            add("config",
                Message::quoting(
                    QT_TRANSLATE_NOOP("qs::Message", "%1: the stored layout is not the one the config declares"),
                    {note}));
}

} // namespace qs
