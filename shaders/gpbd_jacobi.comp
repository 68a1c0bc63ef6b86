#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Any element kind and material model (gpbd_jacobi.glsl).
#include "gpbd_jacobi.glsl"
