#include "commands.h"
#include "container/checkpoint.h"
#include <cstdio>
namespace qscli {
int runInspect(const QStringList& args)
{
    if (args.size() < 2) { std::fprintf(stderr, "usage: quantscope-cli inspect PATH [--json]\n"); return 2; }
    const auto ckpt = qs::Checkpoint::open(args.at(1).toStdString());
    for (const auto& t : ckpt->tensors) std::printf("%s\n", t.name.c_str());
    return 0;
}
}
