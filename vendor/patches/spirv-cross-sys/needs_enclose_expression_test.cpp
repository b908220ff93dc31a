// Differential test of patches/spirv-cross-sys/0001: SPIRV-Cross's original
// CompilerGLSL::needs_enclose_expression against the patched one, both
// extracted from their spirv_glsl.cpp by scripts/vendor-spirv-cross.sh into
// functions.inc (as original_needs_enclose and patched_needs_enclose).
// Built once per code path the patch has (SSE2, AArch64 NEON under qemu,
// and the scalar loop alone) and run on every string of up to 6 characters
// over the characters the function looks at, on random strings of every
// length to 300 (balanced, unbalanced, deeply nested), and on SPIRV-Cross
// output. Exits non-zero on the first disagreement.
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include "functions.inc"

static long tested = 0, enclosed = 0;

static bool same(const std::string &s)
{
	bool a = original_needs_enclose(s);
	bool b = patched_needs_enclose(s);
	tested++;
	enclosed += a;
	if (a != b)
	{
		std::printf("MISMATCH on \"%s\" (length %zu): original %d, patched %d\n", s.c_str(), s.size(), a, b);
		return false;
	}
	return true;
}

int main()
{
	// Every string of up to 6 characters over the interesting alphabet.
	const char small[] = "()[] -x";
	const int k = sizeof(small) - 1;
	for (int len = 0; len <= 6; len++)
	{
		long total = 1;
		for (int j = 0; j < len; j++)
			total *= k;
		for (long code = 0; code < total; code++)
		{
			std::string s;
			long c = code;
			for (int j = 0; j < len; j++, c /= k)
				s += small[c % k];
			if (!same(s))
				return 1;
		}
	}
	// Random strings of every length to 300 with several mixes: balanced
	// expressions, opening-heavy (deep nesting, past 16 and 255), and
	// closing-heavy (the counter wraps below zero, as the original's does).
	std::mt19937 rng(20261124);
	const char *alphabets[] = {
		"()[] ab.*+-",  // even mix
		"(((((( a)",    // deep
		"))))]] a(",    // wrapping below zero
		"abcdefgh (",   // long runs without brackets
		" ",            // spaces only
	};
	for (const char *alphabet : alphabets)
	{
		const size_t m = std::string(alphabet).size();
		for (int len = 0; len <= 300; len++)
			for (int r = 0; r < 300; r++)
			{
				std::string s;
				for (int j = 0; j < len; j++)
					s += alphabet[rng() % m];
				if (!same(s))
					return 1;
			}
	}
	// Nested past what an 8-bit lane holds, then a space at depth 0 at every
	// offset within a 16-character block.
	for (int depth : { 15, 16, 17, 127, 128, 255, 256, 257, 300 })
		for (int pad = 0; pad < 40; pad++)
		{
			std::string s = std::string(size_t(pad), 'a') + std::string(size_t(depth), '(') + "a b" +
			                std::string(size_t(depth), ')');
			if (!same(s) || !same(s + " x") || !same(s + ")" + std::string(size_t(pad), 'b') + " x") ||
			    !same(s + std::string(size_t(depth), ')') + std::string(size_t(depth), '(') + " x"))
				return 1;
		}
	// SPIRV-Cross's own output: an operand of a 2048-operation chain.
	std::string e = "(*spvDescriptorSet0.m_11)._m0[gl_GlobalInvocationID.x]";
	for (int j = 0; j < 48; j++)
	{
		e = "(" + e + " * 1.25) - (*spvDescriptorSet0.m_12)._m0[gl_GlobalInvocationID.x]";
		if (!same(e) || !same("(" + e + ")") || !same("-" + e))
			return 1;
	}
	std::printf("needs_enclose_expression: patched agrees with original on %ld strings (%ld need enclosing)\n", tested,
	            enclosed);
	return 0;
}
