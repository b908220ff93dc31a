// Differential test of patch 0001 (vendor/README.md): the patched
// ValidationState_t constructor reads a module's header and counts its
// instructions and OpFunctions by walking word counts (CountModule, cut out of
// the patched validation_state.cpp by scripts/vendor-spirv-tools.sh into
// count_module.inc), where the original ran spvBinaryParse with a header
// callback and an instruction callback. The counts size the vectors the
// validator takes pointers into, so they must never be fewer than what the
// validating parse (the same parser as the original count) adds.
//
// For every module given on the command line, and mutants of each (every
// truncation, words zeroed, set to all ones or to random values, word counts
// changed, the byte order swapped), in two target environments:
// - the header is read or not, and its version, generator and bound, exactly
//   as the original's callback saw them;
// - a module the parser accepts whole gets exactly the original's counts;
// - any other gets at least the original's counts.
// Prints the number of modules checked; exits 1 at the first disagreement.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "count_module.inc"

namespace {

struct Original {
  bool header = false;
  uint32_t version = 0;
  uint32_t generator = 0;
  uint32_t bound = 0;
  size_t instructions = 0;
  size_t functions = 0;
  bool parsed = false;
};

// The original constructor's callbacks (setHeader, CountInstructions).
spv_result_t OnHeader(void* user, spv_endianness_t, uint32_t, uint32_t version,
                      uint32_t generator, uint32_t bound, uint32_t) {
  Original& o = *static_cast<Original*>(user);
  o.header = true;
  o.version = version;
  o.generator = generator;
  o.bound = bound;
  return SPV_SUCCESS;
}

spv_result_t OnInstruction(void* user, const spv_parsed_instruction_t* inst) {
  Original& o = *static_cast<Original*>(user);
  if (spv::Op(inst->opcode) == spv::Op::OpFunction) o.functions++;
  o.instructions++;
  return SPV_SUCCESS;
}

Original Count(spv_const_context context, const std::vector<uint32_t>& w) {
  Original o;
  o.parsed = spvBinaryParse(context, &o, w.data(), w.size(), OnHeader,
                            OnInstruction, nullptr) == SPV_SUCCESS;
  return o;
}

size_t checked = 0;

void Check(spv_const_context context, const std::vector<uint32_t>& w,
           const char* what) {
  const Original o = Count(context, w);
  const patched::ModuleCounts p = patched::CountModule(w.data(), w.size());
  checked++;
  const bool header_ok =
      o.header == p.header &&
      (!o.header || (o.version == p.version && o.generator == p.generator &&
                     o.bound == p.bound));
  const bool counts_ok =
      o.parsed ? (o.instructions == p.instructions && o.functions == p.functions)
               : (p.instructions >= o.instructions && p.functions >= o.functions);
  if (!header_ok || !counts_ok) {
    std::fprintf(stderr,
                 "%s (%zu words): original header %d v%08x g%08x b%u, "
                 "%zu instructions, %zu functions (parsed: %d); patched "
                 "header %d v%08x g%08x b%u, %zu instructions, %zu functions\n",
                 what, w.size(), o.header, o.version, o.generator, o.bound,
                 o.instructions, o.functions, o.parsed, p.header, p.version,
                 p.generator, p.bound, p.instructions, p.functions);
    std::exit(1);
  }
}

std::vector<uint32_t> Read(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  std::vector<uint32_t> w(bytes.size() / 4);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = uint32_t(uint8_t(bytes[4 * i])) |
           uint32_t(uint8_t(bytes[4 * i + 1])) << 8 |
           uint32_t(uint8_t(bytes[4 * i + 2])) << 16 |
           uint32_t(uint8_t(bytes[4 * i + 3])) << 24;
  }
  return w;
}

uint32_t Swap(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

void Mutants(spv_const_context context, const std::vector<uint32_t>& w,
             const char* path, std::mt19937& rng) {
  Check(context, w, path);
  std::vector<uint32_t> swapped(w);
  for (uint32_t& x : swapped) x = Swap(x);
  Check(context, swapped, path);
  for (size_t n = 0; n <= w.size() && n < 4096; ++n) {
    Check(context, std::vector<uint32_t>(w.begin(), w.begin() + long(n)), path);
  }
  // The start of each instruction, by the walk the parser makes.
  std::vector<size_t> starts;
  for (size_t i = 5; i < w.size() && (w[i] >> 16) != 0; i += w[i] >> 16) {
    starts.push_back(i);
  }
  for (size_t s : starts) {
    for (uint32_t count : {0u, 1u, (w[s] >> 16) - 1u, (w[s] >> 16) + 1u,
                           (w[s] >> 16) + 7u, 0xffffu}) {
      std::vector<uint32_t> m(w);
      m[s] = (count << 16) | (w[s] & 0xffffu);
      Check(context, m, path);
    }
    std::vector<uint32_t> m(w);
    m[s] = (w[s] & 0xffff0000u) | uint32_t(spv::Op::OpFunction);
    Check(context, m, path);
  }
  std::uniform_int_distribution<size_t> at(0, w.empty() ? 0 : w.size() - 1);
  for (int i = 0; i < 400 && !w.empty(); ++i) {
    std::vector<uint32_t> m(w);
    const size_t k = at(rng);
    switch (i % 4) {
      case 0: m[k] = 0; break;
      case 1: m[k] = 0xffffffffu; break;
      case 2: m[k] = uint32_t(rng()); break;
      default: m[k] = uint32_t(rng()) & 0x0003ffffu; break;
    }
    Check(context, m, path);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937 rng(14);
  for (spv_target_env env : {SPV_ENV_VULKAN_1_1, SPV_ENV_UNIVERSAL_1_6}) {
    spv_context context = spvContextCreate(env);
    for (int i = 1; i < argc; ++i) {
      Mutants(context, Read(argv[i]), argv[i], rng);
    }
    // No words, a lone header, and headers of either byte order.
    Check(context, {}, "empty");
    Check(context, {0x07230203u, 0x00010300u, 7u, 9u, 0u}, "header");
    Check(context, {0x03022307u, 0x00030100u, 0x07000000u, 0x09000000u, 0u},
          "big-endian header");
    Check(context, {0x07230203u, 0x00010300u, 7u}, "short header");
    Check(context, {0x12345678u, 0x00010300u, 7u, 9u, 0u, 0x00010000u},
          "bad magic");
    spvContextDestroy(context);
  }
  std::printf("%zu modules agree\n", checked);
  return 0;
}
