/* Preloaded (LD_PRELOAD) into the tests of a sanitizer build only: dlclose does
 * nothing, so every module the Vulkan loader opens (the validation layer,
 * lavapipe and its LLVM) stays mapped until the process exits.
 *
 * Why: LeakSanitizer checks at exit. The loader dlclose()s the layer and the
 * driver at vkDestroyInstance, which unmaps their globals (so what those point
 * to looks leaked) and their code (so the allocation stacks print as
 * <unknown module>, which no suppression can match). Kept loaded, what their
 * globals hold is reachable, and a real leak inside them names its module.
 * Loaders from 1.3.259 offer VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1 for
 * this; Debian 12's (1.3.239) does not.
 *
 * Built without sanitizers: it is also preloaded into the uninstrumented
 * programs a test runs (sh, glslangValidator), which must not pull in libasan.
 * ASan is told not to insist on being first (verify_asan_link_order=0); this
 * file interposes nothing that the sanitizer runtime intercepts. */
#define _GNU_SOURCE
#include <dlfcn.h>

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
