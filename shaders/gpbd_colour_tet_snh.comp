#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// gpbd_colour.glsl for bodies whose elements are all tetrahedra of stable neo-Hookean
// materials: the other kinds' and models' code folds away (gpbd.glsl).
#define GPBD_KIND SINEW_GPU_TET
#define GPBD_MODEL SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN
#include "gpbd_colour.glsl"
