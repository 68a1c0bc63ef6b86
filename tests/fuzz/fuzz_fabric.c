/* libFuzzer target: sinew_fabric_parse on arbitrary bytes. What it accepts
 * must be a valid TABULATED material: strains strictly increasing, stresses
 * non-decreasing, zero strain a point at stress zero, all finite. */
#include "fuzz_common.h"

#include "prep/fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_material m;
    sinew_result r = sinew_fabric_parse((const char *)data, size, "fuzz.json", &fuzz_logger, &m);
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_INVALID_ARGUMENT || r == SINEW_RESULT_ERROR_LIMIT);
    if (r != SINEW_RESULT_OK)
        return 0;
    FUZZ_CHECK(m.model == SINEW_MATERIAL_TABULATED && m.thickness > 0.0f && m.density > 0.0f);
    FUZZ_CHECK(sinew_material_check(&m, "fuzz.json", &fuzz_logger) == SINEW_RESULT_OK);
    for (int k = 0; k < 3; k++) {
        int zero = 0;
        for (int i = 0; i < SINEW_TABLE_POINTS; i++) {
            FUZZ_CHECK(isfinite(m.table_strain[k][i]) && isfinite(m.table_stress[k][i]));
            FUZZ_CHECK(i == 0 || m.table_strain[k][i] > m.table_strain[k][i - 1]);
            FUZZ_CHECK(i == 0 || m.table_stress[k][i] >= m.table_stress[k][i - 1]);
            zero += m.table_strain[k][i] == 0.0f && m.table_stress[k][i] == 0.0f;
        }
        FUZZ_CHECK(zero == 1);
    }
    return 0;
}
