/* Double-precision geometry of the XPBD constraints, shared by the offline tool
 * (rest values) and the CPU reference solver in tests/. The GLSL kernels in
 * shaders/ implement the same formulas in fp32.
 *
 * Dihedral angle of a hinge (Bridson, Marino and Fedkiw 2003): p0-p1 is the
 * shared edge, p2 and p3 the wing vertices.
 *
 *     e  = p1 - p0,   n1 = e x (p2 - p0),   n2 = (p3 - p0) x e
 *     theta = atan2((n1 x n2) . e/|e|, n1 . n2)        0 when flat, in (-pi, pi]
 *
 * The sign does not depend on the winding of the triangles, only on the order of
 * the hinge's vertices. Gradient (s_k = (p_k - p0).e / |e|^2):
 *
 *     g2 = -|e| n1 / |n1|^2,   g3 = -|e| n2 / |n2|^2
 *     g0 = (s2 - 1) g2 + (s3 - 1) g3,   g1 = -s2 g2 - s3 g3
 */
#ifndef SINEW_XPBD_MATH_H
#define SINEW_XPBD_MATH_H

#include <math.h>

static inline void sinew_v3_sub(const double *a, const double *b, double *r)
{
    r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void sinew_v3_cross(const double *a, const double *b, double *r)
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    r[0] = x; r[1] = y; r[2] = z;
}
static inline double sinew_v3_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Signed dihedral angle (rad). Returns 0 and sets *ok = 0 for a degenerate hinge. */
static inline double sinew_dihedral_angle(const double *p0, const double *p1, const double *p2,
                                          const double *p3, int *ok)
{
    double e[3], a[3], b[3], n1[3], n2[3], c[3];
    sinew_v3_sub(p1, p0, e);
    sinew_v3_sub(p2, p0, a);
    sinew_v3_sub(p3, p0, b);
    sinew_v3_cross(e, a, n1);
    sinew_v3_cross(b, e, n2);
    double le = sqrt(sinew_v3_dot(e, e));
    double l1 = sinew_v3_dot(n1, n1), l2 = sinew_v3_dot(n2, n2);
    if (!(le > 1e-12) || !(l1 > 1e-24) || !(l2 > 1e-24)) {
        if (ok) *ok = 0;
        return 0.0;
    }
    if (ok) *ok = 1;
    sinew_v3_cross(n1, n2, c);
    return atan2(sinew_v3_dot(c, e) / le, sinew_v3_dot(n1, n2));
}

/* Gradient of the dihedral angle with respect to p0..p3 (3 doubles each in g).
 * Returns 0 for a degenerate hinge (g untouched). */
static inline int sinew_dihedral_gradient(const double *p0, const double *p1, const double *p2,
                                          const double *p3, double g[4][3])
{
    double e[3], a[3], b[3], n1[3], n2[3];
    sinew_v3_sub(p1, p0, e);
    sinew_v3_sub(p2, p0, a);
    sinew_v3_sub(p3, p0, b);
    sinew_v3_cross(e, a, n1);
    sinew_v3_cross(b, e, n2);
    double ee = sinew_v3_dot(e, e);
    double l1 = sinew_v3_dot(n1, n1), l2 = sinew_v3_dot(n2, n2);
    if (!(ee > 1e-24) || !(l1 > 1e-24) || !(l2 > 1e-24))
        return 0;
    double le = sqrt(ee);
    double s2 = sinew_v3_dot(a, e) / ee, s3 = sinew_v3_dot(b, e) / ee;
    for (int k = 0; k < 3; k++) {
        g[2][k] = -le * n1[k] / l1;
        g[3][k] = -le * n2[k] / l2;
        g[0][k] = (s2 - 1.0) * g[2][k] + (s3 - 1.0) * g[3][k];
        g[1][k] = -s2 * g[2][k] - s3 * g[3][k];
    }
    return 1;
}

/* Wraps an angle difference into (-pi, pi]. */
static inline double sinew_wrap_angle(double a)
{
    const double pi = 3.14159265358979323846;
    while (a > pi) a -= 2.0 * pi;
    while (a <= -pi) a += 2.0 * pi;
    return a;
}

/* The hinge angle atan2 gives lies in (-pi, pi] and jumps by 2 pi when a hinge
 * folds through flat (theta = +-pi, the wings on top of each other). A
 * constraint on that angle would then push the fold the wrong way, through
 * the fold, and cloth with stiff bending flips over violently. Each bend keeps
 * its angle from the last projection instead and takes the branch of theta
 * nearest to it, so the angle is continuous and the constraint keeps pulling
 * back the way the hinge came. */
static inline double sinew_unwrap_angle(double theta, double last)
{
    return last + sinew_wrap_angle(theta - last);
}

#endif
