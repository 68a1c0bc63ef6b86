/* libFuzzer target: sinew_volume_read_tetgen_memory on arbitrary bytes, split
 * at the first NUL into the .node and the .ele text (no NUL: all .node, empty
 * .ele), then the soft-body builder on what it accepts. */
#include "fuzz_volume.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t node_size = nul ? (size_t)(nul - text) : size;
    const char *ele = nul ? nul + 1 : text + size;
    size_t ele_size = size - node_size - (nul != NULL);
    sinew_volume v;
    sinew_result r = sinew_volume_read_tetgen_memory(text, node_size, "fuzz.node", ele, ele_size, "fuzz.ele",
                                                     &fuzz_logger, &v);
    fuzz_check_volume(r, &v);
    if (r == SINEW_RESULT_OK)
        fuzz_build_soft(&v, size);
    sinew_volume_free(&v);
    return 0;
}
