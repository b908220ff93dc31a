// The test of 0001 (scripts/vendor-libmimalloc.sh): mimalloc's static.c,
// linked into this program, from the patched tree with MI_NO_PROCESS_ATTACH
// (as the patched build.rs builds it) or from the original tree. Its argument
// says which, and so what to find at main: patched, mimalloc not initialised
// until the program calls _mi_auto_process_init(), as halc's batch workers
// do; original, initialised by the constructor. Then allocations of many
// sizes must come from mimalloc and be freed by it.
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mimalloc.h"

extern bool _mi_process_is_initialized;
void _mi_auto_process_init(void);

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "patched") != 0 && strcmp(argv[1], "original") != 0))
	{
		fprintf(stderr, "usage: %s patched|original\n", argv[0]);
		return 2;
	}
	bool patched = strcmp(argv[1], "patched") == 0;
	if (_mi_process_is_initialized == patched)
	{
		fprintf(stderr, "%s: mimalloc was %sinitialised when main started\n", argv[1],
		        patched ? "" : "not ");
		return 1;
	}
	if (patched)
		_mi_auto_process_init();
	if (!_mi_process_is_initialized)
	{
		fprintf(stderr, "%s: mimalloc is not initialised after _mi_auto_process_init()\n", argv[1]);
		return 1;
	}
	int sizes = 0;
	for (size_t n = 1; n < (size_t)64 << 20; n = n * 3 + 1, sizes++)
	{
		unsigned char *p = mi_malloc(n);
		if (p == NULL || !mi_is_in_heap_region(p))
		{
			fprintf(stderr, "%s: an allocation of %zu bytes is not mimalloc's\n", argv[1], n);
			return 1;
		}
		memset(p, 0xa5, n);
		mi_free(p);
	}
	printf("%s: initialised %s, %d allocation sizes from mimalloc\n", argv[1],
	       patched ? "by the program" : "by the constructor", sizes);
	return 0;
}
