/* libFuzzer target: sinew_mesh_read_off_memory on arbitrary bytes. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_mesh m;
    sinew_result r = sinew_mesh_read_off_memory((const char *)data, size, "fuzz.off", &fuzz_logger, &m);
    fuzz_check_mesh(r, &m);
    sinew_mesh_free(&m);
    return 0;
}
