#pragma once
// What verify reports: the findings of the format checks (each family's in <family>_verify.cpp,
// reached through FamilyRow::verify) and which weights were checked. analysis/verify.h runs them.
#include "base/message.h"

#include <cstddef>
#include <string>
#include <vector>

namespace qs {

class Checkpoint;
struct LogicalWeight;

struct VerifyFinding {
    std::string weight;
    // "shape", "qweight-roundtrip", "qzeros-roundtrip", "scales-roundtrip", "g_idx", "scale", "zero-convention",
    // "v1-zero-spill", "quant_map", "codes", "config", "input-perm", "roundtrip-not-applicable",
    // "zero-convention-mixed" (a warning: detection found GPTQ v1 and v2 zeros mixed)
    std::string check;
    Message message; // the English text is message.text(); the GUI shows it translated
    // Warnings describe data that upstream tools really write and read (the GPTQ v1 zero-0 spill):
    // reported, not a failed check.
    bool warning = false;
};

struct VerifyReport {
    std::vector<VerifyFinding> findings;
    std::vector<std::string> checked;   // weights every check ran on
    std::vector<std::string> unchecked; // quantized weights of formats verify does not cover
    size_t errors() const;              // findings that are not warnings
};

// One weight's format checks: they append findings to the report.
using VerifyFn = void (*)(const Checkpoint& ckpt, const LogicalWeight& weight, VerifyReport& report);

} // namespace qs
