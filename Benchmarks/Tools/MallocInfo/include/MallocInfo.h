// glibc's allocator statistics, which Swift's Glibc module does not export
// (it does not include <malloc.h>). Used by ObjectGraphMemory and WatcherMemory.
#ifndef MALLOC_INFO_H
#define MALLOC_INFO_H

#include <stddef.h>

/// Bytes the program holds in heap blocks right now, as glibc's
/// mallinfo2() counts them: blocks in the arenas (uordblks: chunk sizes,
/// each with its 8-byte header, rounded up to 16 bytes) plus blocks mapped
/// on their own (hblkhd). Zero where mallinfo2() is not available.
size_t malloc_info_bytes_in_use(void);

/// The usable size of the heap block at `pointer` (malloc_usable_size), or
/// zero where it is not available.
size_t malloc_info_block_size(const void *pointer);

#endif
