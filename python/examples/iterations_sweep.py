"""How far a hanging cloth stretches against the solver's iterations, plotted.

    python iterations_sweep.py [--steps 60] [--plot sweep.png]

A 24 x 24 cloth pinned at two corners hangs under gravity for --steps steps
of --substeps substeps, once per iteration count; the stretch the solver leaves
(sinew's max_strain, |C|/L of the worst distance constraint) falls as the
iterations grow. The table is printed; with matplotlib installed (pip
install matplotlib) it is also plotted to --plot.
"""

import argparse

import sinew


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--substeps", type=int, default=4)
    ap.add_argument("--iterations", default="1,2,4,8,16,32")
    ap.add_argument("--solvers", default="xpbd-gs,xpbd-jacobi")
    ap.add_argument("--plot", default="sweep.png")
    ap.add_argument("--device", default=None)
    args = ap.parse_args()

    ctx = sinew.Context(args.device)
    asset = sinew.prep.grid(24, 24, pin_corners=True)
    counts = [int(n) for n in args.iterations.split(",")]
    results = {}
    print(f"{ctx.device.name}: max strain after {args.steps} steps of {args.substeps} substeps")
    print("solver         " + "".join(f"{n:>9d}" for n in counts))
    for solver in args.solvers.split(","):
        strains = []
        for n in counts:
            body = ctx.create_body(asset, solver=solver, substeps=args.substeps, iterations=n)
            for _ in range(args.steps):
                body.step()
            strains.append(body.stats().max_strain)
            body.close()
        results[solver] = strains
        print(f"{solver:<15}" + "".join(f"{100 * s:8.3f}%" for s in strains))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for solver, strains in results.items():
        ax.loglog(counts, [100 * s for s in strains], marker="o", label=solver)
    ax.set_xlabel("iterations per substep")
    ax.set_ylabel("max strain (%)")
    ax.set_title(f"hanging 24 x 24 cloth, {args.steps} steps x {args.substeps} substeps "
                 f"({ctx.device.name.split(' (')[0]})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.plot, dpi=120)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
