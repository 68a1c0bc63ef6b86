/* volk compiled once, inside the library: the Vulkan loader is opened at run
 * time, so libsinew links no Vulkan library. */
#include <volk.c>
