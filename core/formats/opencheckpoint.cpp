#include "formats/opencheckpoint.h"

#include "formats/detect.h"

namespace qs {

std::shared_ptr<const Checkpoint> openCheckpoint(const std::string& path)
{
    std::shared_ptr<Checkpoint> ckpt = Checkpoint::read(path);
    ckpt->weights = detectWeights(*ckpt);
    return ckpt;
}

} // namespace qs
