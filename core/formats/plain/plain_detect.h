#pragma once
// The plain row's detection (formats/detectutil.h).
namespace qs {
namespace detect {

class Context;
struct Group;
// Claims a module whose members name a format detection only lists (EXL2, EXL3, AQLM,
// quanto); the plain row's detectGroup, the last asked.
bool namedOnlyGroup(Context& cx, const Group& group);

} // namespace detect
} // namespace qs
