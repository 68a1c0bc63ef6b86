/* libFuzzer target: sinew_mesh_read_off_memory on arbitrary bytes, and any
 * mesh it accepts given to sinew_volume_lattice (6 cubes across, following
 * the surface), whose result must be whole cubes of positive tetrahedra with
 * indices in range. */
#include "fuzz_common.h"
#include "prep/volume.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_mesh m;
    sinew_result r = sinew_mesh_read_off_memory((const char *)data, size, "fuzz.off", &fuzz_logger, &m);
    fuzz_check_mesh(r, &m);
    if (r == SINEW_RESULT_OK) {
        sinew_volume v;
        if (sinew_volume_lattice(&m, 6, 1, "fuzz.off", &fuzz_logger, &v) == SINEW_RESULT_OK) {
            if (v.tet_count == 0 || v.tet_count % 6 != 0)
                abort();
            for (uint64_t i = 0; i < 4ull * v.tet_count; i++)
                if (v.tets[i] >= v.vertex_count)
                    abort();
            for (uint32_t t = 0; t < v.tet_count; t++) {
                const uint32_t *q = v.tets + 4 * (size_t)t;
                if (!(sinew_tet_signed_volume(v.positions + 3 * (size_t)q[0], v.positions + 3 * (size_t)q[1],
                                              v.positions + 3 * (size_t)q[2], v.positions + 3 * (size_t)q[3]) > 0.0))
                    abort();
            }
            sinew_volume_free(&v);
        }
    }
    sinew_mesh_free(&m);
    return 0;
}
