#include "base/error.h"

namespace qs {

void fail(const std::string& file, const std::string& what)
{
    throw Error(file + ": " + what);
}

} // namespace qs
