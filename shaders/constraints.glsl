// XPBD projection of one constraint (docs/math.md 2), shared by the Gauss-Seidel and
// Jacobi kernels:  dl = (-C - at l) / (sum w |grad C|^2 + at),  at = alpha / h^2,
// correction of vertex j = w_j grad_j C dl.  Returns dl (0 when skipped).

float project_distance(GpuDistance d, vec4 pa, vec4 pb, inout float l, out vec3 da, out vec3 db)
{
    da = vec3(0.0);
    db = vec3(0.0);
    float w = pa.w + pb.w;
    vec3 e = pa.xyz - pb.xyz;
    float len = length(e);
    if (w == 0.0 || len < 1e-9)
        return 0.0;
    float at = d.compliance * params.inv_h2;
    float dl = (-(len - d.rest) - at * l) / (w + at);
    l += dl;
    vec3 n = e / len;
    da = (pa.w * dl) * n;
    db = -(pb.w * dl) * n;
    return dl;
}

// Dihedral angle and gradient; src/solvers/xpbd_math.h has the derivation.
bool hinge(vec3 p0, vec3 p1, vec3 p2, vec3 p3, out float theta, out vec3 g[4])
{
    vec3 e = p1 - p0;
    vec3 a = p2 - p0;
    vec3 b = p3 - p0;
    vec3 n1 = cross(e, a);
    vec3 n2 = cross(b, e);
    float ee = dot(e, e);
    float l1 = dot(n1, n1);
    float l2 = dot(n2, n2);
    if (ee < 1e-18 || l1 < 1e-24 || l2 < 1e-24)
        return false;
    float le = sqrt(ee);
    theta = atan(dot(cross(n1, n2), e) / le, dot(n1, n2));
    float s2 = dot(a, e) / ee;
    float s3 = dot(b, e) / ee;
    g[2] = (-le / l1) * n1;
    g[3] = (-le / l2) * n2;
    g[0] = (s2 - 1.0) * g[2] + (s3 - 1.0) * g[3];
    g[1] = -s2 * g[2] - s3 * g[3];
    return true;
}

// last: the hinge's angle at its previous projection. theta takes the branch
// nearest to it, so the angle stays continuous when the hinge folds through
// +-pi (src/solvers/xpbd_math.h, sinew_unwrap_angle), and last is updated.
float project_bend(GpuBend b, vec4 p[4], inout float l, inout float last, out vec3 dp[4])
{
    for (int j = 0; j < 4; j++)
        dp[j] = vec3(0.0);
    float theta;
    vec3 g[4];
    if (!hinge(p[0].xyz, p[1].xyz, p[2].xyz, p[3].xyz, theta, g))
        return 0.0;
    float denom = 0.0;
    for (int j = 0; j < 4; j++)
        denom += p[j].w * dot(g[j], g[j]);
    float at = b.compliance * params.inv_h2;
    if (denom + at == 0.0)
        return 0.0;
    const float pi = 3.14159265358979;
    float d = theta - last;   // wrapped into (-pi, pi]
    if (d > pi) d -= 2.0 * pi;
    if (d <= -pi) d += 2.0 * pi;
    theta = last + d;
    last = theta;
    float c = theta - b.rest_angle;
    float dl = (-c - at * l) / (denom + at);
    float aimed = abs(dl) * denom;      // linearized change of theta
    if (aimed > SINEW_BEND_STEP_LIMIT)
        dl *= SINEW_BEND_STEP_LIMIT / aimed;
    l += dl;
    for (int j = 0; j < 4; j++)
        dp[j] = (p[j].w * dl) * g[j];
    return dl;
}
