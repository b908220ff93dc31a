// Differential test of patch 0002 (vendor/README.md): the patched
// spvtools::LookupOpcode(spv::Op, ...) finds opcodes below 1024 in a table
// indexed by opcode instead of a binary search of kInstructionDesc. The
// patched table2.cpp is included whole (for its static tables), and the
// original function, cut out of the original table2.cpp by
// scripts/vendor-spirv-tools.sh, is OriginalLookupOpcode in lookup_original.inc.
// Every opcode value from 0 to 65536 must give the same status and the same
// entry (the first entry of an opcode that several share). Prints the number
// of opcodes found; exits 1 at the first disagreement.

#include <cstdio>
#include <cstdlib>

#include "source/table2.cpp"

namespace spvtools {
#include "lookup_original.inc"
}  // namespace spvtools

int main() {
  unsigned found = 0;
  for (uint32_t op = 0; op <= 0x10000u; ++op) {
    const spvtools::InstructionDesc* original = nullptr;
    const spvtools::InstructionDesc* patched = nullptr;
    const spv_result_t o = spvtools::OriginalLookupOpcode(spv::Op(op), &original);
    const spv_result_t p = spvtools::LookupOpcode(spv::Op(op), &patched);
    if (o != p || original != patched) {
      std::fprintf(stderr,
                   "opcode %u: original %d entry %p, patched %d entry %p\n",
                   op, int(o), static_cast<const void*>(original), int(p),
                   static_cast<const void*>(patched));
      return 1;
    }
    found += o == SPV_SUCCESS;
  }
  if (found < 700) {
    std::fprintf(stderr, "only %u opcodes found\n", found);
    return 1;
  }
  std::printf("%u opcodes agree\n", found);
  return 0;
}
