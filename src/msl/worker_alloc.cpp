// The C++ allocation functions of every program that links halc, replaced
// (as the C++ standard allows a program to) so that a batch's worker
// processes can give SPIRV-Cross and SPIRV-Tools mimalloc, while every
// other process, and a worker compiling a single module, keeps glibc's
// malloc: mimalloc's first allocations of each size cost a fresh page each,
// about 0.2 ms in a cold process, more than it saves on one small kernel.
//
// Until halc_worker_use_mimalloc() is called, new is malloc and delete is
// free, as libstdc++'s own definitions are. A forked worker that is to
// compile several modules calls it once, before it serves its first
// request and while it is single-threaded; from then on new allocates from
// mimalloc, and delete hands a pointer to mimalloc only if mimalloc owns it:
// what was allocated before the call (the parent's static data the fork
// copied) is still freed by glibc. src/msl/worker/allocator.rs; docs/performance.md.
//
// The aligned (std::align_val_t) forms are not replaced: libstdc++ pairs
// them with aligned_alloc and free, which stay glibc's.

#include <cstddef>
#include <cstdlib>
#include <new>

extern "C" {
void *mi_malloc(std::size_t size) noexcept;
void mi_free(void *p) noexcept;
bool mi_is_in_heap_region(const void *p) noexcept;
// One of mimalloc's internals (libmimalloc-sys is pinned to the version
// that has it): whether its process constructor has run, for the tests.
extern bool _mi_process_is_initialized;
}

namespace
{
// Written once, by a single-threaded worker before it allocates from
// mimalloc; read-only in every other process.
bool use_mimalloc = false;

void *allocate(std::size_t size) noexcept
{
	if (size == 0)
		size = 1;
	return use_mimalloc ? mi_malloc(size) : std::malloc(size);
}

void *allocate_or_throw(std::size_t size)
{
	for (;;)
	{
		if (void *p = allocate(size))
			return p;
		std::new_handler handler = std::get_new_handler();
		if (!handler)
			throw std::bad_alloc();
		handler();
	}
}

void deallocate(void *p) noexcept
{
	if (p == nullptr)
		return;
	if (use_mimalloc && mi_is_in_heap_region(p))
		mi_free(p);
	else
		std::free(p);
}
} // namespace

extern "C" void halc_worker_use_mimalloc() noexcept
{
	// mimalloc's process constructor has initialised it in every process
	// that links it (a patch that removed the constructor bought under 5 %
	// and was dropped: vendor/README.md).
	use_mimalloc = true;
}

// For tests: whether mimalloc has been initialised in this process.
extern "C" bool halc_worker_mimalloc_started() noexcept
{
	return _mi_process_is_initialized;
}

extern "C" bool halc_worker_uses_mimalloc() noexcept
{
	return use_mimalloc;
}

// For tests: a C++ allocation made here, and whether mimalloc owns it.
extern "C" void *halc_worker_cxx_new(std::size_t size)
{
	return ::operator new(size);
}

extern "C" void halc_worker_cxx_delete(void *p) noexcept
{
	::operator delete(p);
}

extern "C" bool halc_worker_mimalloc_owns(const void *p) noexcept
{
	return mi_is_in_heap_region(p);
}

void *operator new(std::size_t size)
{
	return allocate_or_throw(size);
}

void *operator new[](std::size_t size)
{
	return allocate_or_throw(size);
}

void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
	try
	{
		return allocate_or_throw(size);
	}
	catch (...)
	{
		return nullptr;
	}
}

void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
	try
	{
		return allocate_or_throw(size);
	}
	catch (...)
	{
		return nullptr;
	}
}

void operator delete(void *p) noexcept
{
	deallocate(p);
}

void operator delete[](void *p) noexcept
{
	deallocate(p);
}

void operator delete(void *p, std::size_t) noexcept
{
	deallocate(p);
}

void operator delete[](void *p, std::size_t) noexcept
{
	deallocate(p);
}

void operator delete(void *p, const std::nothrow_t &) noexcept
{
	deallocate(p);
}

void operator delete[](void *p, const std::nothrow_t &) noexcept
{
	deallocate(p);
}
