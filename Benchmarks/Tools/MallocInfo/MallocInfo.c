#include "MallocInfo.h"

#if defined(__linux__)
#include <malloc.h>
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
size_t malloc_info_bytes_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

size_t malloc_info_block_size(const void *pointer) { return malloc_usable_size((void *)pointer); }
#else
size_t malloc_info_bytes_in_use(void) { return 0; }
size_t malloc_info_block_size(const void *pointer) { return 0; }
#endif
