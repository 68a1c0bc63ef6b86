/* Generalized PBD (docs/math.md 3, docs/gpbd.md): host side. Turns the asset's
 * elements and materials into the device records the kernels read, and
 * records the element sweeps of a step. */
#ifndef SINEW_GPBD_H
#define SINEW_GPBD_H

#include "../asset/asset.h"
#include "shared/layout.h"

/* The device form of a material: Lame parameters from E and nu (membranes:
 * plane stress, times thickness), the SNH rest offset, table stresses times
 * thickness. The material must have passed sinew_material_check. */
GpuMaterial sinew_gpbd_material(const sinew_material *m);

/* The device form of an element: rows of Dm^-1, the energy weight. */
GpuElement sinew_gpbd_element(const sinew_element_rec *e);

/* 1 when a material of this model can drive an element of this kind. */
int sinew_gpbd_model_fits(uint32_t model, uint32_t kind);

#endif
