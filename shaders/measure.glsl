// The measure of a GPBD element at the current positions relative to its rest
// measure, V / V0: the volume of a tetrahedron (det F = det Ds det Dm^-1,
// signed: <= 0 when inverted), the area of a triangle, the length of a
// spring (both >= 0: neither can invert in 3-D). One definition for the
// residual (residual.comp) and the health check (health.comp). Include after
// common.glsl (reads POS).

float measure_ratio(GpuElement e)
{
    if (e.kind == SINEW_GPU_SPRING)
        return length(pos[e.v.x].xyz - pos[e.v.y].xyz) / e.r[0].x;
    vec3 x0 = pos[e.v.x].xyz, e1 = pos[e.v.y].xyz - x0, e2 = pos[e.v.z].xyz - x0;
    if (e.kind == SINEW_GPU_TRIANGLE)
        return 0.5 * length(cross(e1, e2)) / e.measure;
    mat3 Ds = mat3(e1, e2, pos[e.v.w].xyz - x0);
    mat3 DmInvT = mat3(e.r[0].xyz, e.r[1].xyz, e.r[2].xyz);
    return determinant(Ds) * determinant(DmInvT);
}
