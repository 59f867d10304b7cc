// The command line as bytes and as text (base/localpath.h).
#include "commands.h"

#include "base/localpath.h"

namespace qscli {

QStringList commandLine(int argc, char** argv)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << qs::decodeLocalBytes(argv[i]);
    return args;
}

} // namespace qscli
