#version 450
#extension GL_GOOGLE_include_directive : require
// Wind (docs/wind.md, docs/math.md 12): the velocity change h w_i sum_t F_t / 3
// of each particle i over the surface triangles t around it (MESH), with the
// aerodynamic force of a triangle of unit normal n, area A and velocity v_t
// (its corners' mean) in air of density rho moving at the wind's velocity,
//
//     u = wind - v_t,
//     F = 1/2 rho A (n.u) ((C_d + C_l) |u| n - C_l (n.u) u / |u|)
//
// (drag along the normal, lift across u in the plane of n and u). Gathered
// per particle, so no atomics; into SHAPES at params.shapes.w + i, which the
// prediction (integrate.glsl) adds. Velocities: range.first2 == 0 from VEL
// (the first substep's, before the prediction); != 0 those the velocity
// kernel is about to write, (x - x_prev) / h times the damping (the fused
// step: wind before velocity_predict). Pinned particles get none.
#include "common.glsl"

vec3 particle_velocity(uint j)
{
    if (range.first2 == 0u)
        return vel[j].xyz;
    vec4 x = pos[j];
    return x.w == 0.0 ? vec3(0.0) : (x.xyz - prev[j].xyz) * params.inv_h * params.damping;
}

void main()
{
    uint i = linear_id();
    if (i >= range.count)
        return;
    vec4 x = pos[i];
    vec3 f = vec3(0.0);
    if (x.w != 0.0) {
        vec3 vi = particle_velocity(i);
        float rho = params.wind.w, cd = params.aero.x, cl = params.aero.y;
        for (uint k = mesh[i]; k < mesh[i + 1u]; k += 2u) {
            uint a = mesh[k], b = mesh[k + 1u];
            vec3 c = cross(pos[a].xyz - x.xyz, pos[b].xyz - x.xyz);
            float len = length(c);
            vec3 u = params.wind.xyz - (vi + particle_velocity(a) + particle_velocity(b)) / 3.0;
            float speed = length(u);
            if (len == 0.0 || speed == 0.0)
                continue;
            vec3 n = c / len;
            float un = dot(n, u);
            f += (0.25 * rho * len * un) * ((cd + cl) * speed * n - (cl * un / speed) * u); // A = len / 2
        }
    }
    shape_data[params.shapes.w + i] = vec4(params.gravity.w * x.w * f / 3.0, 0.0);
}
