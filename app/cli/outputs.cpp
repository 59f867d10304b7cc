// What the commands that write a folder (repack, quantize, codes) share about --force.
#include "commands.h"

#include "base/outputpath.h"

#include <cstdio>

namespace qscli {

QString forceHelp()
{
    return QStringLiteral("write into an output folder that is not empty: only the files this command writes are "
                          "replaced, no other file is deleted");
}

void printLeftAlone(const std::string& out, const std::vector<std::string>& names)
{
    const std::string note = qs::leftAloneNote(out, names);
    if (!note.empty())
        std::fprintf(stderr, "note: %s\n", note.c_str());
}

} // namespace qscli
