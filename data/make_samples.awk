# Writes the sample meshes the README's examples use (data/README.md):
#
#   tablecloth.obj  an open surface for cloth: a round tablecloth of radius
#               0.6 m at y = 1 m, rings of 6k vertices at k x 3 cm (k = 0..20:
#               1261 vertices, 2400 nearly equilateral triangles whose edges
#               follow no grid direction). Dropped on a sphere it falls into
#               folds all round.
#   pebble.off  a closed surface for soft bodies: an icosahedron split four
#               ways twice (162 vertices, 320 triangles) pushed out to a
#               flattened, gently lobed pebble about 0.36 x 0.2 x 0.26 m
#               resting 0.3 m above the origin. `sinew-prep --tetrahedralise`
#               fills it with tetrahedra.
#
# Everything is computed from closed-form shapes (no randomness); coordinates
# are rounded to 6 decimals, so the files are the same on every machine.
# Run from the repository's root:  awk -f data/make_samples.awk
function fmt(x,    s) {
    s = sprintf("%.6f", x)
    return s == "-0.000000" ? "0.000000" : s
}

function tablecloth(out,    rings, spacing, height, nv, nf, k, i, j, a, b, n_in, n_out, first, vx, vy, vz, fa, fb, fc) {
    rings = 20; spacing = 0.03; height = 1.0
    vx[0] = 0.0; vy[0] = height; vz[0] = 0.0; nv = 1
    first[0] = 0
    for (k = 1; k <= rings; k++) {
        first[k] = nv
        for (i = 0; i < 6 * k; i++) {
            a = 2 * PI * i / (6 * k)
            vx[nv] = k * spacing * cos(a); vy[nv] = height; vz[nv] = k * spacing * sin(a); nv++
        }
    }
    nf = 0
    for (i = 0; i < 6; i++) { fa[nf] = 0; fb[nf] = 1 + (i + 1) % 6; fc[nf] = 1 + i; nf++ }
    for (k = 2; k <= rings; k++) {
        n_in = 6 * (k - 1); n_out = 6 * k
        i = 0; j = 0
        while (i < n_in || j < n_out) {
            a = first[k - 1] + i % n_in; b = first[k] + j % n_out
            if (j < n_out && (i == n_in || (j + 1) * n_in <= (i + 1) * n_out)) {
                fa[nf] = a; fb[nf] = first[k] + (j + 1) % n_out; fc[nf] = b; nf++; j++
            } else {
                fa[nf] = a; fb[nf] = first[k - 1] + (i + 1) % n_in; fc[nf] = b; nf++; i++
            }
        }
    }
    print "# A round tablecloth for cloth examples (data/make_samples.awk; MIT, the sinew authors)" > out
    for (i = 0; i < nv; i++)
        print "v " fmt(vx[i]) " " fmt(vy[i]) " " fmt(vz[i]) > out
    for (i = 0; i < nf; i++)
        printf "f %d %d %d\n", fa[i] + 1, fb[i] + 1, fc[i] + 1 > out
    close(out)
}

# The midpoint of edge ab on the unit sphere, made once per edge.
function middle(a, b,    key, m0, m1, m2, n) {
    key = (a < b ? a : b) SUBSEP (a < b ? b : a)
    if (!(key in mid)) {
        m0 = (X[a] + X[b]) / 2; m1 = (Y[a] + Y[b]) / 2; m2 = (Z[a] + Z[b]) / 2
        n = sqrt(m0 * m0 + m1 * m1 + m2 * m2)
        X[NV] = m0 / n; Y[NV] = m1 / n; Z[NV] = m2 / n
        mid[key] = NV++
    }
    return mid[key]
}

function pebble(out,    p, s, i, k, lev, g, ga, gb, gc, ab, bc, ca, x, y, z, lobes, ico) {
    p = (1 + sqrt(5)) / 2
    # The icosahedron's corners, +-2 standing for +-p (a number in a string
    # would be rounded to CONVFMT's 6 digits).
    split("-1 2 0 1 2 0 -1 -2 0 1 -2 0 0 -1 2 0 1 2 0 -1 -2 0 1 -2 2 0 -1 2 0 1 -2 0 -1 -2 0 1", ico, " ")
    for (i = 1; i <= 36; i++)
        ico[i] = ico[i] == 2 ? p : ico[i] == -2 ? -p : ico[i] + 0
    s = sqrt(1 + p * p)
    for (i = 0; i < 12; i++) { X[i] = ico[3 * i + 1] / s; Y[i] = ico[3 * i + 2] / s; Z[i] = ico[3 * i + 3] / s }
    NV = 12
    split("0 11 5 0 5 1 0 1 7 0 7 10 0 10 11 1 5 9 5 11 4 11 10 2 10 7 6 7 1 8 3 9 4 3 4 2 3 2 6 3 6 8 3 8 9 4 9 5 2 4 11 6 2 10 8 6 7 9 8 1", ico, " ")
    NF = 20
    for (i = 0; i < NF; i++) { FA[i] = ico[3 * i + 1]; FB[i] = ico[3 * i + 2]; FC[i] = ico[3 * i + 3] }
    for (lev = 0; lev < 2; lev++) {
        delete mid
        g = 0
        for (i = 0; i < NF; i++) {
            ab = middle(FA[i], FB[i]); bc = middle(FB[i], FC[i]); ca = middle(FC[i], FA[i])
            ga[g] = FA[i]; gb[g] = ab; gc[g] = ca; g++
            ga[g] = FB[i]; gb[g] = bc; gc[g] = ab; g++
            ga[g] = FC[i]; gb[g] = ca; gc[g] = bc; g++
            ga[g] = ab; gb[g] = bc; gc[g] = ca; g++
        }
        NF = g
        for (i = 0; i < NF; i++) { FA[i] = ga[i]; FB[i] = gb[i]; FC[i] = gc[i] }
    }
    print "OFF" > out
    print "# A lobed pebble for soft-body examples (data/make_samples.awk; MIT, the sinew authors)" > out
    printf "%d %d 0\n", NV, NF > out
    for (i = 0; i < NV; i++) {
        x = X[i]; y = Y[i]; z = Z[i]
        lobes = 1 + 0.08 * sin(3 * atan2(z, x)) * (1 - y * y) + 0.05 * x * y
        print fmt(0.18 * x * lobes) " " fmt(0.3 + 0.1 * y * lobes) " " fmt(0.13 * z * lobes) > out
    }
    for (i = 0; i < NF; i++)
        printf "3 %d %d %d\n", FA[i], FB[i], FC[i] > out
    close(out)
}

BEGIN {
    PI = atan2(0, -1)
    dir = ENVIRON["SINEW_SAMPLES_DIR"] != "" ? ENVIRON["SINEW_SAMPLES_DIR"] : "data"
    tablecloth(dir "/tablecloth.obj")
    pebble(dir "/pebble.off")
}
