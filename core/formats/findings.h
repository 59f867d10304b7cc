#pragma once
// What verify reports: the findings of the format checks (each family's in <family>_verify.cpp,
// reached through FamilyRow::verify) and which weights were checked. analysis/verify.h runs them.
#include "base/message.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qs {

class Checkpoint;
struct LogicalWeight;

// Where a finding is: the logical [out, in] matrix's row and column, the group of the scale
// grids ([group, row], as stored), the block (the stored index of a GGUF or bitsandbytes
// block); -1 where it does not apply.
struct FindingPlace {
    int64_t row = -1, col = -1, group = -1, block = -1;
    auto operator<=>(const FindingPlace&) const = default;
};

struct VerifyFinding {
    std::string weight;
    // "shape", "qweight-roundtrip", "qzeros-roundtrip", "scales-roundtrip", "g_idx", "scale", "zero-convention",
    // "v1-zero-spill", "quant_map", "codes", "codes-dtype", "codebooks", "config", "input-perm",
    // "roundtrip-not-applicable",
    // "zero-convention-mixed" (a warning: detection found GPTQ v1 and v2 zeros mixed); the
    // health scan's (analysis/healthscan.h) "nonfinite-value", "nonfinite-scale", "nonfinite-zero",
    // "nonfinite-absmax", "zero-weight", "zero-row", "zero-group", "zero-block", "zero-scale";
    // the config's "config", "config-group-size", "config-zero". The JSON calls it `kind`.
    std::string check;
    Message message; // the English text is message.text(); the GUI shows it translated
    // Warnings describe data that upstream tools really write and read (the GPTQ v1 zero-0 spill):
    // reported, not a failed check.
    bool warning = false;
    // The first few places (row-major order) and how many there are (0: not counted).
    std::vector<FindingPlace> places = {};
    uint64_t count = 0;
};

struct VerifyReport {
    std::vector<VerifyFinding> findings;
    std::vector<std::string> checked; // weights every check ran on
    std::vector<std::string> unchecked; // quantized weights of formats verify does not cover
    size_t errors() const; // findings that are not warnings
};

// One weight's format checks: they append findings to the report.
using VerifyFn = void (*)(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report);

} // namespace qs
