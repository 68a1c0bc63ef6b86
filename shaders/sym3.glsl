// Symmetric 3x3 eigen-decomposition and the rotation of a deformation
// gradient, shared by the Generalized PBD and MGPBD kernels.
#ifndef SINEW_SYM3_GLSL
#define SINEW_SYM3_GLSL

// One cyclic Jacobi rotation of eigen_sym3 (below), on the pair (p, q): constants
// wherever it is called, so that A and Q are indexed by constants only.
void sym3_rotate(inout mat3 A, inout mat3 Q, int p, int q)
{
    float apq = A[q][p];
    if (abs(apq) < 1e-30)
        return;
    float theta = (A[q][q] - A[p][p]) / (2.0 * apq);
    float t = (theta >= 0.0 ? 1.0 : -1.0) / (abs(theta) + sqrt(theta * theta + 1.0));
    float c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
    vec3 ap = A[p], aq = A[q];
    A[p] = c * ap - sn * aq;
    A[q] = sn * ap + c * aq;
    vec3 rp = vec3(A[0][p], A[1][p], A[2][p]), rq = vec3(A[0][q], A[1][q], A[2][q]);
    vec3 np = c * rp - sn * rq, nq = sn * rp + c * rq;
    A[0][p] = np.x; A[1][p] = np.y; A[2][p] = np.z;
    A[0][q] = nq.x; A[1][q] = nq.y; A[2][q] = nq.z;
    vec3 qp = Q[p], qq = Q[q];
    Q[p] = c * qp - sn * qq;
    Q[q] = sn * qp + c * qq;
}

void sym3_order(inout vec3 ev, inout mat3 V, int i, int j)
{
    if (ev[j] > ev[i]) {
        float te = ev[i]; ev[i] = ev[j]; ev[j] = te;
        vec3 tv = V[i]; V[i] = V[j]; V[j] = tv;
    }
}

// Eigenvectors (columns of V, a rotation) and eigenvalues, decreasing, of a
// symmetric 3x3 matrix by cyclic Jacobi rotations, every matrix indexed by
// constants: a GPU keeps them in registers, where indexing at run time would
// cost local memory (on llvmpipe even when no invocation needs the solve).
void eigen_sym3(mat3 S, out mat3 V, out vec3 ev)
{
    mat3 A = S;
    mat3 Q = mat3(1.0);
    for (int sweep = 0; sweep < 8; sweep++) {
        sym3_rotate(A, Q, 0, 1);
        sym3_rotate(A, Q, 0, 2);
        sym3_rotate(A, Q, 1, 2);
    }
    ev = vec3(A[0][0], A[1][1], A[2][2]);
    V = Q;
    sym3_order(ev, V, 0, 1);
    sym3_order(ev, V, 0, 2);
    sym3_order(ev, V, 1, 2);
    if (determinant(V) < 0.0)
        V[2] = -V[2];
}

// F's rotation-variant singular value decomposition F = U diag(s) V^T (U, V
// proper rotations; s decreasing, except that an inverted F's last, smallest
// singular value is negative): V the eigenvectors of F^T F; U's columns F V_i
// normalised in order of decreasing singular value, the last one their cross
// product; s_i = U_i . F V_i.
void svd_rv(mat3 F, out mat3 U, out vec3 s, out mat3 V)
{
    vec3 ev;
    eigen_sym3(transpose(F) * F, V, ev);
    U[0] = F * V[0];
    float n0 = length(U[0]);
    U[0] = n0 < 1e-12 ? vec3(1.0, 0.0, 0.0) : U[0] / n0;
    U[1] = F * V[1];
    U[1] -= dot(U[0], U[1]) * U[0];
    float n1 = length(U[1]);
    if (n1 < 1e-12) {
        U[1] = cross(U[0], abs(U[0].x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0));
        n1 = length(U[1]);
    }
    U[1] /= n1;
    U[2] = cross(U[0], U[1]);
    s = vec3(dot(U[0], F * V[0]), dot(U[1], F * V[1]), dot(U[2], F * V[2]));
}

// The rotation of that decomposition, R = U V^T: the nearest rotation to F.
mat3 rotation_part(mat3 F)
{
    mat3 U, V;
    vec3 s;
    svd_rv(F, U, s, V);
    return U * transpose(V);
}

#endif
