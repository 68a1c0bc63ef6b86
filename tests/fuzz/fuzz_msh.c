/* libFuzzer target: sinew_volume_read_msh_memory (Gmsh 2.2 and 4.1, ASCII and
 * binary) on arbitrary bytes, then the soft-body builder on what it accepts. */
#include "fuzz_volume.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_volume v;
    sinew_result r = sinew_volume_read_msh_memory(data, size, "fuzz.msh", &fuzz_logger, &v);
    fuzz_check_volume(r, &v);
    if (r == SINEW_RESULT_OK)
        fuzz_build_soft(&v, size);
    sinew_volume_free(&v);
    return 0;
}
