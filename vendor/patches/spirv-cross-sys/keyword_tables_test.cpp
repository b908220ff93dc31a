// Differential test of patches/spirv-cross-sys/0004: SPIRV-Cross's original
// keyword sets (std::unordered_set<std::string>s) against the patched sorted
// arrays searched by SortedNames, all extracted from their sources by
// scripts/vendor-spirv-cross.sh into keywords.inc:
//   original::glsl, original::msl_keywords, original::msl_functions
//     (CompilerGLSL::replace_illegal_names, CompilerMSL::get_reserved_keyword_set,
//     CompilerMSL::get_illegal_func_names, as upstream wrote them), and
//   patched::SortedNames with patched::glsl, patched::msl_keywords,
//     patched::msl_functions.
// Checks that each array is strictly increasing (what bisection needs), holds
// exactly the set's names, and that SortedNames::count answers as the set's
// count on every name, on every name changed by one character (dropped,
// doubled, replaced, appended, case flipped), on every prefix, on names with
// an embedded NUL, on the empty name, and on random strings. Exits non-zero
// on the first disagreement.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "keywords.inc"

static long tested = 0;

static bool agree(const char *table, const std::unordered_set<std::string> &set,
                  const patched::SortedNames &names, const std::string &name)
{
	tested++;
	size_t want = set.count(name), got = names.count(name);
	if (want != got)
	{
		std::string shown;
		for (char c : name)
			shown += c == '\0' ? std::string("\\0") : std::string(1, c);
		printf("%s: count(\"%s\") is %zu, the original set says %zu\n", table, shown.c_str(), got, want);
		return false;
	}
	return true;
}

template <size_t N>
static bool check(const char *table, const std::unordered_set<std::string> &set, const char *const (&array)[N],
                  std::mt19937 &rng)
{
	for (size_t i = 1; i < N; i++)
	{
		if (std::string(array[i - 1]).compare(array[i]) >= 0)
		{
			printf("%s: not strictly increasing at \"%s\", \"%s\"\n", table, array[i - 1], array[i]);
			return false;
		}
	}
	if (N != set.size())
	{
		printf("%s: %zu names, the original set has %zu\n", table, N, set.size());
		return false;
	}
	for (const char *name : array)
	{
		if (!set.count(name))
		{
			printf("%s: \"%s\" is not in the original set\n", table, name);
			return false;
		}
	}

	const patched::SortedNames names(array);
	const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	std::vector<std::string> probes = { "", std::string(1, '\0'), "~", "\x7f", "\xff", "A", "z", "_" };
	for (const std::string &name : set)
	{
		probes.push_back(name);
		probes.push_back(name + "0");
		probes.push_back(name + "_");
		probes.push_back("_" + name);
		probes.push_back(name + std::string(1, '\0'));
		probes.push_back(name + std::string(1, '\0') + "x");
		for (size_t len = 0; len < name.size(); len++)
			probes.push_back(name.substr(0, len));
		for (size_t i = 0; i < name.size(); i++)
		{
			std::string dropped = name, doubled = name, flipped = name;
			dropped.erase(i, 1);
			doubled.insert(i, 1, name[i]);
			flipped[i] = char(flipped[i] ^ 0x20);
			probes.push_back(dropped);
			probes.push_back(doubled);
			probes.push_back(flipped);
			for (char c : alphabet)
			{
				std::string replaced = name;
				replaced[i] = c;
				probes.push_back(replaced);
			}
		}
	}
	for (int i = 0; i < 200000; i++)
	{
		std::string name(rng() % 12, ' ');
		for (char &c : name)
			c = alphabet[rng() % alphabet.size()];
		probes.push_back(name);
	}
	for (const std::string &name : probes)
		if (!agree(table, set, names, name))
			return false;
	return true;
}

int main()
{
	std::mt19937 rng(4);
	if (!check("GLSL keywords", original::glsl, patched::glsl, rng) ||
	    !check("MSL reserved keywords", original::msl_keywords, patched::msl_keywords, rng) ||
	    !check("MSL illegal function names", original::msl_functions, patched::msl_functions, rng))
		return 1;
	printf("%zu + %zu + %zu names, %ld lookups agree\n", original::glsl.size(), original::msl_keywords.size(),
	       original::msl_functions.size(), tested);
	return 0;
}
