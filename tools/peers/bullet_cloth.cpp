// bullet_cloth: the hanging-cloth peer scene (tools/peers/SCENE.md) run with
// Bullet's btSoftBody (position-based links), for comparison with sinew.
//
//   bullet_cloth --n N --substeps S --iterations K [--steps 120] [--verbose]
//
// Prints one JSON line to stdout; --verbose prints set-up checks to stderr.
// Build: g++ -O2 bullet_cloth.cpp $(pkg-config --cflags --libs bullet)

#include <btBulletDynamicsCommon.h>
#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Scene constants (SCENE.md).
const double kDt = 1.0 / 60.0;
const double kTotalMass = 0.2;      // kg: 0.2 kg/m^2 over 1 m^2
const double kGravity = -9.81;      // m/s^2
const double kHeight = 1.0;         // m
const int kTimedFrom = 11;          // time steps 11..steps (1-based)

// Bullet settings. Stretch and shear links: kLST = 1 (Bullet's stiffest;
// shear compliance 1e-6 m/N is effectively rigid at these masses). Bending:
// Bullet's distance-2 links with kLST = 0.1 (SCENE.md: "stiffness ~0.1").
const double kStretchLST = 1.0;
const double kBendLST = 0.1;
const int kBendDistance = 2;

long g_ticks = 0;  // internal (sub)steps actually taken by stepSimulation

void count_tick(btDynamicsWorld*, btScalar) { ++g_ticks; }

void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --n N --substeps S --iterations K [--steps 120] "
               "[--verbose]\n",
               argv0);
  std::exit(2);
}

int parse_int(const char* s, const char* argv0) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!s[0] || *end || v < 1 || v > 1000000) usage(argv0);
  return (int)v;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 0, substeps = 0, iterations = 0, steps = 120;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strcmp(a, "--verbose")) {
      verbose = true;
      continue;
    }
    if (i + 1 >= argc) usage(argv[0]);
    if (!std::strcmp(a, "--n")) n = parse_int(argv[++i], argv[0]);
    else if (!std::strcmp(a, "--substeps")) substeps = parse_int(argv[++i], argv[0]);
    else if (!std::strcmp(a, "--iterations")) iterations = parse_int(argv[++i], argv[0]);
    else if (!std::strcmp(a, "--steps")) steps = parse_int(argv[++i], argv[0]);
    else usage(argv[0]);
  }
  if (n < 2 || substeps < 1 || iterations < 1 || steps < kTimedFrom) usage(argv[0]);

  // World: soft/rigid world, no rigid bodies.
  btSoftBodyRigidBodyCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
  world.setGravity(btVector3(0, (btScalar)kGravity, 0));
  btSoftBodyWorldInfo& wi = world.getWorldInfo();
  wi.m_gravity.setValue(0, (btScalar)kGravity, 0);  // soft bodies use this one
  wi.air_density = 0;  // no aerodynamics (kLF = kDG = 0 already)
  wi.m_sparsesdf.Initialize();
  world.setInternalTickCallback(count_tick);

  // Patch. CreatePatch puts node (ix, iy) at index iy*resx + ix and at
  // corner00 + ix/(resx-1) (corner10 - corner00) + iy/(resy-1) (corner01 - corner00);
  // fixeds bit 1 pins (0, 0), bit 2 pins (resx-1, 0). With these corners node
  // (ix, iy) is the scene's particle (i, j) = (ix, iy):
  // x = -0.5 + i/(N-1), z = -0.5 + j/(N-1), y = 1.
  const btScalar h = (btScalar)kHeight;
  btSoftBody* cloth = btSoftBodyHelpers::CreatePatch(
      wi, btVector3(-0.5, h, -0.5), btVector3(0.5, h, -0.5),
      btVector3(-0.5, h, 0.5), btVector3(0.5, h, 0.5), n, n,
      /*fixeds=*/1 | 2, /*gendiags=*/true);

  // CreatePatch's gendiags adds only one diagonal per quad (alternating
  // direction); SCENE.md asks for both, so add the other one with the same
  // (default, kLST = 1) material.
  const int links_patch = cloth->m_links.size();
  for (int iy = 0; iy + 1 < n; ++iy) {
    for (int ix = 0; ix + 1 < n; ++ix) {
      const int a = iy * n + ix, b = iy * n + ix + 1;
      const int c = (iy + 1) * n + ix, d = (iy + 1) * n + ix + 1;
      if ((ix + iy) & 1) cloth->appendLink(b, c);  // patch made a-d
      else cloth->appendLink(a, d);                // patch made b-c
    }
  }
  const int links_diag2 = cloth->m_links.size() - links_patch;

  btSoftBody::Material* stretch = cloth->m_materials[0];
  stretch->m_kLST = (btScalar)kStretchLST;
  stretch->m_kAST = 1;
  stretch->m_kVST = 1;

  btSoftBody::Material* bend = cloth->appendMaterial();
  bend->m_kLST = (btScalar)kBendLST;
  bend->m_flags -= btSoftBody::fMaterial::DebugDraw;
  const int links_bend = cloth->generateBendingConstraints(kBendDistance, bend);

  cloth->m_cfg.piterations = iterations;
  cloth->m_cfg.viterations = 0;
  cloth->m_cfg.diterations = 0;
  cloth->m_cfg.citerations = 0;
  cloth->m_cfg.kDP = 0;  // no damping
  cloth->m_cfg.kDG = 0;  // no drag
  cloth->m_cfg.kLF = 0;  // no lift
  cloth->m_cfg.kPR = 0;
  cloth->m_cfg.kVC = 0;
  cloth->m_cfg.kMT = 0;
  cloth->m_cfg.timescale = 1;
  cloth->m_cfg.collisions = 0;  // no rigid-soft, no self collision
  cloth->setTotalMass((btScalar)kTotalMass);  // uniform over the free nodes
  cloth->setActivationState(DISABLE_DEACTIVATION);
  const btScalar margin = cloth->getCollisionShape()->getMargin();
  world.addSoftBody(cloth);

  // Check the pins and the index mapping.
  const int pin0 = 0, pin1 = n - 1;
  int pinned = 0;
  for (int i = 0; i < cloth->m_nodes.size(); ++i)
    if (cloth->m_nodes[i].m_im == 0) ++pinned;
  double map_err = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const btVector3& x = cloth->m_nodes[j * n + i].m_x;
      map_err = std::fmax(map_err, std::fabs(x.x() - (-0.5 + i / (double)(n - 1))));
      map_err = std::fmax(map_err, std::fabs(x.y() - kHeight));
      map_err = std::fmax(map_err, std::fabs(x.z() - (-0.5 + j / (double)(n - 1))));
    }
  if (pinned != 2 || cloth->m_nodes[pin0].m_im != 0 ||
      cloth->m_nodes[pin1].m_im != 0 || map_err > 1e-5) {
    std::fprintf(stderr, "bullet_cloth: set-up check failed (pinned %d, map error %g)\n",
                 pinned, map_err);
    return 1;
  }
  if (verbose) {
    const btVector3& p0 = cloth->m_nodes[pin0].m_x;
    const btVector3& p1 = cloth->m_nodes[pin1].m_x;
    std::fprintf(stderr,
                 "pinned nodes: %d; node 0 (0,0) at (%g, %g, %g); node %d (%d,0) "
                 "at (%g, %g, %g); index map error %g\n",
                 pinned, p0.x(), p0.y(), p0.z(), pin1, n - 1, p1.x(), p1.y(),
                 p1.z(), map_err);
    std::fprintf(stderr,
                 "links: %d from CreatePatch, %d second diagonals, %d bending; "
                 "faces %d; total mass %g; margin %g\n",
                 links_patch, links_diag2, links_bend, cloth->m_faces.size(),
                 (double)cloth->getTotalMass(), (double)margin);
  }

  // Run. stepSimulation(dt, maxSubSteps, fixedTimeStep) with fixedTimeStep =
  // dt/S; maxSubSteps = S + 1 so that a step whose float time accumulator
  // falls just short of S substeps can catch up on the next one.
  const btScalar dt = (btScalar)kDt;
  const btScalar fixed_dt = (btScalar)(kDt / substeps);
  // Strain on the 2 N (N-1) structural grid edges after each of the last 60
  // steps (SCENE.md): RMS averaged over the steps, max the largest seen.
  const double rest = 1.0 / (n - 1);
  const int window_from = steps > 60 ? steps - 60 : 0;
  double max_strain = 0, rms_sum = 0;
  int measured = 0;
  bool finite = true;
  auto measure = [&]() {
    double sum_sq = 0;
    long edges = 0;
    auto edge = [&](int a, int b) {
      const btVector3 d = cloth->m_nodes[b].m_x - cloth->m_nodes[a].m_x;
      const double len = std::sqrt((double)d.x() * d.x() + (double)d.y() * d.y() +
                                   (double)d.z() * d.z());
      const double e = std::fabs(len - rest) / rest;
      if (!std::isfinite(e)) finite = false;
      max_strain = std::fmax(max_strain, e);
      sum_sq += e * e;
      ++edges;
    };
    for (int j = 0; j < n; ++j)
      for (int i = 0; i + 1 < n; ++i) edge(j * n + i, j * n + i + 1);
    for (int j = 0; j + 1 < n; ++j)
      for (int i = 0; i < n; ++i) edge(j * n + i, (j + 1) * n + i);
    rms_sum += std::sqrt(sum_sq / edges);
    ++measured;
  };

  std::vector<double> ms(steps, 0.0);
  for (int s = 0; s < steps; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    world.stepSimulation(dt, substeps + 1, fixed_dt);
    auto t1 = std::chrono::steady_clock::now();
    ms[s] = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (s >= window_from) measure();
  }
  double sum = 0;
  for (int s = kTimedFrom - 1; s < steps; ++s) sum += ms[s];
  const double ms_per_step = sum / (steps - (kTimedFrom - 1));
  const double rms_strain = rms_sum / measured;

  if (verbose) {
    const btVector3& p0 = cloth->m_nodes[pin0].m_x;
    const btVector3& p1 = cloth->m_nodes[pin1].m_x;
    const btVector3& far = cloth->m_nodes[(n - 1) * n + (n - 1) / 2].m_x;
    std::fprintf(stderr,
                 "after %d steps (%ld substeps, expected %ld): pins at (%g, %g, %g) "
                 "and (%g, %g, %g); node (%d,%d) at (%g, %g, %g)\n",
                 steps, g_ticks, (long)steps * substeps, p0.x(), p0.y(), p0.z(),
                 p1.x(), p1.y(), p1.z(), (n - 1) / 2, n - 1, far.x(), far.y(),
                 far.z());
  }
  if (g_ticks != (long)steps * substeps)
    std::fprintf(stderr, "bullet_cloth: warning: %ld substeps taken, expected %ld\n",
                 g_ticks, (long)steps * substeps);

  char settings[512];
  std::snprintf(settings, sizeof settings,
                "kLST=%g (stretch+shear links) kAST=%g kDP=%g piterations=%d "
                "viterations=0 diterations=0 bending distance=%d kLST_bend=%g "
                "margin=%g collisions=0 both diagonals substeps_taken=%ld "
                "btScalar=%s",
                kStretchLST, (double)stretch->m_kAST, (double)cloth->m_cfg.kDP,
                iterations, kBendDistance, kBendLST, (double)margin, g_ticks,
                sizeof(btScalar) == 8 ? "double" : "float");

  char smax[32] = "null", srms[32] = "null";
  if (finite) {
    std::snprintf(smax, sizeof smax, "%.6g", max_strain);
    std::snprintf(srms, sizeof srms, "%.6g", rms_strain);
  }
  std::printf(
      "{\"peer\": \"bullet\", \"version\": \"%d.%02d\", \"method\": \"PBD links "
      "(btSoftBody)\", \"backend\": \"cpu, 1 thread\", \"n\": %d, \"substeps\": %d, "
      "\"iterations\": %d, \"steps\": %d, \"ms_per_step\": %.4g, \"max_strain\": %s, "
      "\"rms_strain\": %s, \"settings\": \"%s\"}\n",
      BT_BULLET_VERSION / 100, BT_BULLET_VERSION % 100, n, substeps, iterations,
      steps, ms_per_step, smax, srms, settings);

  world.removeSoftBody(cloth);
  delete cloth;
  return finite ? 0 : 1;
}
