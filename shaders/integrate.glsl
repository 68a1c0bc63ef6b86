// The per-particle steps of docs/math.md section 1 that start and end a
// substep, one definition for the kernels that run them alone (predict.comp,
// velocity.comp) and together (velocity_predict.comp), and the clearing of
// the position-based solvers' per-substep state that rides along with the
// prediction. Include after common.glsl and pbd.glsl.

// v += h g (+ the wind's change, wind.comp);  x_prev = x;  x += h v.  Pinned
// particles (w = 0) stay.
void predict_particle(uint i)
{
    vec4 x = pos[i];
    prev[i] = x;
    if (x.w == 0.0) {
        vel[i] = vec4(0.0);
        return;
    }
    float h = params.gravity.w;
    vec3 v = vel[i].xyz + h * params.gravity.xyz;
    if (params.aero.z != 0.0) // the wind's velocity change (wind.comp)
        v += shape_data[params.shapes.w + i].xyz;
    vel[i] = vec4(v, 0.0);
    pos[i] = vec4(x.xyz + h * v, x.w);
}

// v = (x - x_prev) / h, then damping. Returns the velocity written.
vec3 velocity_particle(uint i)
{
    vec4 x = pos[i];
    vec3 v = x.w == 0.0 ? vec3(0.0) : (x.xyz - prev[i].xyz) * params.inv_h * params.damping;
    vel[i] = vec4(v, 0.0);
    return v;
}

// lambda = 0 for LAMBDA[0, range.count2), z = 0 for ZDISP[0, range.slot_base):
// what the position-based solvers start each substep from (0 and 0 for the
// others, whose set 1 holds other buffers).
void clear_substep(uint i)
{
    if (i < range.count2)
        lambda[i] = 0.0;
    if (i < range.slot_base)
        zdisp[i] = vec4(0.0);
}

// Threads a dispatch that predicts and clears needs.
uint clear_threads()
{
    return max(range.count, max(range.count2, range.slot_base));
}
