/* The kernel table: every compute kernel's SPIR-V (compiled by glslc at build
 * time and embedded here) with the push-constant size it reads. */
#include "gpu.h"

#define SINEW_SPIRV(file) static const uint32_t spirv_##file[] =

SINEW_SPIRV(predict) {
#include "predict.spv.inc"
};
SINEW_SPIRV(collide) {
#include "collide.spv.inc"
};
SINEW_SPIRV(velocity) {
#include "velocity.spv.inc"
};
SINEW_SPIRV(project_colour) {
#include "project_colour.spv.inc"
};
SINEW_SPIRV(jacobi_project) {
#include "jacobi_project.spv.inc"
};
SINEW_SPIRV(jacobi_apply) {
#include "jacobi_apply.spv.inc"
};
SINEW_SPIRV(residual) {
#include "residual.spv.inc"
};
SINEW_SPIRV(residual_reduce) {
#include "residual_reduce.spv.inc"
};
SINEW_SPIRV(health) {
#include "health.spv.inc"
};
SINEW_SPIRV(gpbd_colour) {
#include "gpbd_colour.spv.inc"
};
SINEW_SPIRV(gpbd_jacobi) {
#include "gpbd_jacobi.spv.inc"
};
SINEW_SPIRV(hpbd_project) {
#include "hpbd_project.spv.inc"
};
SINEW_SPIRV(hpbd_prolong) {
#include "hpbd_prolong.spv.inc"
};
SINEW_SPIRV(pd_local) {
#include "pd_local.spv.inc"
};
SINEW_SPIRV(pd_global) {
#include "pd_global.spv.inc"
};
SINEW_SPIRV(pd_apply) {
#include "pd_apply.spv.inc"
};
SINEW_SPIRV(mg_assemble) {
#include "mg_assemble.spv.inc"
};
SINEW_SPIRV(mg_residual) {
#include "mg_residual.spv.inc"
};
SINEW_SPIRV(mg_restrict) {
#include "mg_restrict.spv.inc"
};
SINEW_SPIRV(mg_prolong) {
#include "mg_prolong.spv.inc"
};
SINEW_SPIRV(mg_pcg) {
#include "mg_pcg.spv.inc"
};
SINEW_SPIRV(mg_reduce) {
#include "mg_reduce.spv.inc"
};
SINEW_SPIRV(mg_smooth) {
#include "mg_smooth.spv.inc"
};
SINEW_SPIRV(mg_advance) {
#include "mg_advance.spv.inc"
};
SINEW_SPIRV(mg_constrain) {
#include "mg_constrain.spv.inc"
};
SINEW_SPIRV(mg_history) {
#include "mg_history.spv.inc"
};
SINEW_SPIRV(amg_constraint) {
#include "amg_constraint.spv.inc"
};
SINEW_SPIRV(amg_assemble) {
#include "amg_assemble.spv.inc"
};
SINEW_SPIRV(amg_spmv) {
#include "amg_spmv.spv.inc"
};
SINEW_SPIRV(amg_product) {
#include "amg_product.spv.inc"
};
SINEW_SPIRV(amg_gram) {
#include "amg_gram.spv.inc"
};
SINEW_SPIRV(amg_vector) {
#include "amg_vector.spv.inc"
};
SINEW_SPIRV(amg_reduce) {
#include "amg_reduce.spv.inc"
};
SINEW_SPIRV(amg_coarse) {
#include "amg_coarse.spv.inc"
};
SINEW_SPIRV(amg_apply) {
#include "amg_apply.spv.inc"
};
SINEW_SPIRV(normals) {
#include "normals.spv.inc"
};
SINEW_SPIRV(copy) {
#include "copy.spv.inc"
};
SINEW_SPIRV(empty) {
#include "empty.spv.inc"
};

const sinew_kernel_info sinew_kernels[SINEW_KERNEL_COUNT] = {
#define SINEW_X_INFO(id, file, push) \
    [SINEW_KERNEL_##id] = {#file, spirv_##file, sizeof spirv_##file, sizeof(push)},
    SINEW_KERNEL_LIST(SINEW_X_INFO)
#undef SINEW_X_INFO
};
