// Differential test of patches/spirv-cross-sys/0002: how SPIRV-Cross's
// original Compiler::inherit_expression_dependencies joins the dependency
// lists against how the patched one does, both extracted from their
// spirv_cross.cpp by scripts/vendor-spirv-cross.sh into inherit.inc (as
// original_inherit and patched_inherit: the function from its
// `auto &e_deps` line to its end, over SPIRV-Cross's own SmallVector<ID>).
// Run on every pair of subsets of 0..5 with every source 0..6, on random
// lists to 300 values (sparse, dense and overlapping, near 2^32), and on
// lists that are not strictly increasing (the patch must fall back to the
// sort). Exits non-zero on the first disagreement.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
#include "spirv_common.hpp"

using namespace std;
using namespace SPIRV_CROSS_NAMESPACE;

// What the extracted lines see of an expression.
struct Expression
{
	SmallVector<ID> expression_dependencies;
};

#include "inherit.inc"

static long tested = 0, merged = 0;

static SmallVector<ID> to_list(const vector<uint32_t> &v)
{
	SmallVector<ID> out;
	for (uint32_t x : v)
		out.push_back(ID(x));
	return out;
}

static void print(const char *name, const SmallVector<ID> &v)
{
	printf(" %s {", name);
	for (size_t i = 0; i < v.size(); i++)
		printf("%s%u", i ? ", " : "", uint32_t(v[i]));
	printf("}");
}

static bool increasing(const vector<uint32_t> &v)
{
	for (size_t i = 1; i < v.size(); i++)
		if (!(v[i - 1] < v[i]))
			return false;
	return true;
}

static bool same(const vector<uint32_t> &e_in, const vector<uint32_t> &s_in, uint32_t source)
{
	Expression a, b, s;
	a.expression_dependencies = to_list(e_in);
	b.expression_dependencies = to_list(e_in);
	s.expression_dependencies = to_list(s_in);
	original_inherit(a, &s, source);
	patched_inherit(b, &s, source);
	tested++;
	merged += increasing(e_in) && increasing(s_in);
	bool equal = a.expression_dependencies.size() == b.expression_dependencies.size();
	for (size_t i = 0; equal && i < a.expression_dependencies.size(); i++)
		equal = a.expression_dependencies[i] == b.expression_dependencies[i];
	// The source's list is read, never written.
	bool source_kept = s.expression_dependencies.size() == s_in.size();
	for (size_t i = 0; source_kept && i < s_in.size(); i++)
		source_kept = s.expression_dependencies[i] == s_in[i];
	if (!equal || !source_kept)
	{
		printf("MISMATCH with source %u:", source);
		print("e", to_list(e_in));
		print("s", to_list(s_in));
		print("original", a.expression_dependencies);
		print("patched", b.expression_dependencies);
		printf("%s\n", source_kept ? "" : " (the source's list changed)");
		return false;
	}
	return true;
}

// A strictly increasing list of about `size` values drawn from [base, base + range).
static vector<uint32_t> sorted_list(mt19937_64 &rng, size_t size, uint64_t base, uint64_t range)
{
	vector<uint32_t> v;
	for (size_t i = 0; i < size; i++)
		v.push_back(uint32_t(base + rng() % range));
	sort(v.begin(), v.end());
	v.erase(unique(v.begin(), v.end()), v.end());
	return v;
}

int main()
{
	// Every pair of subsets of 0..5, with every source in 0..6.
	for (uint32_t em = 0; em < 64; em++)
		for (uint32_t sm = 0; sm < 64; sm++)
			for (uint32_t source = 0; source <= 6; source++)
			{
				vector<uint32_t> e, s;
				for (uint32_t x = 0; x < 6; x++)
				{
					if (em & (1u << x))
						e.push_back(x);
					if (sm & (1u << x))
						s.push_back(x);
				}
				if (!same(e, s, source))
					return 1;
			}

	mt19937_64 rng(0x5eed);
	for (int round = 0; round < 200000; round++)
	{
		size_t ne = rng() % 4 == 0 ? 0 : rng() % 301;
		size_t ns = rng() % 301;
		// Dense ranges make the lists overlap; sparse ones make them interleave;
		// the last ones reach the top of the 32-bit range.
		uint64_t range = (round % 3 == 0) ? ne + ns + 2 : (round % 3 == 1) ? 4 * (ne + ns) + 8 : (1ull << 32);
		uint64_t base = (round % 7 == 0) ? (1ull << 32) - range : rng() % 1000;
		vector<uint32_t> e = sorted_list(rng, ne, base, range);
		vector<uint32_t> s = sorted_list(rng, ns, base, range);
		uint32_t source;
		switch (rng() % 4)
		{
		case 0:
			source = e.empty() ? uint32_t(base) : e[rng() % e.size()];
			break;
		case 1:
			source = s.empty() ? uint32_t(base) : s[rng() % s.size()];
			break;
		case 2:
			source = uint32_t(base + range - 1);
			break;
		default:
			source = uint32_t(base + rng() % range);
			break;
		}
		if (!same(e, s, source))
			return 1;
		// Not strictly increasing: a repeated value, or two values swapped.
		if (round % 10 == 0 && e.size() >= 2)
		{
			vector<uint32_t> d = e;
			d.insert(d.begin() + long(rng() % d.size()), d[rng() % d.size()]);
			if (!same(d, s, source))
				return 1;
			vector<uint32_t> w = s.size() >= 2 ? s : e;
			size_t k = rng() % (w.size() - 1);
			swap(w[k], w[k + 1]);
			if (!same(e, w, source) || !same(w, s, source))
				return 1;
		}
	}
	printf("%ld pairs of lists agree (%ld merged, %ld sorted)\n", tested, merged, tested - merged);
	return 0;
}
