#include "formats/detect.h"
#include "container/checkpoint.h"
namespace qs {
std::vector<LogicalWeight> detectWeights(const Checkpoint&) { return {}; }
}
