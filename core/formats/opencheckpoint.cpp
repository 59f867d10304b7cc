#include "formats/opencheckpoint.h"

#include "formats/detect.h"

namespace qs {

std::shared_ptr<const Checkpoint> openCheckpoint(const std::string& path, const std::vector<std::string>& chosen)
{
    std::shared_ptr<Checkpoint> ckpt = Checkpoint::read(path, chosen);
    ckpt->weights = detectWeights(*ckpt);
    return ckpt;
}

} // namespace qs
