#pragma once
// The plain row's hooks defined apart from its row: its layouts, its budget rows, its detection.
namespace qs {

class LayoutRegistry;
struct FamilyTargets;
// The plain element types' layouts and the named-only formats' (layoutspec_plain.cpp).
void registerPlainLayouts(LayoutRegistry& r);
// The plain floats' budget rows (plain_targets.cpp).
const FamilyTargets& plainTargets();

// The plain row's detection (formats/detectutil.h).
namespace detect {

class Context;
struct Group;
// Claims a module whose members name a format detection only lists (EXL3) or whose config is
// AMD Quark's; the plain row's detectGroup, the last asked.
bool namedOnlyGroup(Context& cx, const Group& group);
// EXL3 by its trellis, AMD Quark by quantization_config quant_method "quark" (named_detect.cpp).
bool exl3Group(Context& cx, const Group& group);
bool quarkGroup(Context& cx, const Group& group);

} // namespace detect
} // namespace qs
