"""How many message collisions do spare nodes cost a 2D stencil job?

Every set of up to three failed nodes on an 8x8 mesh with one spare column, substituted by
the nearest spare (0D), against sliding with two spare sides. Run: python examples/spare_nodes_quickstart.py
"""

import fray.spares

for alloc, method in [("2D(1,1)", "0D"), ("2D(2,1)", "hybrid(all)")]:
    curve = fray.spares.study("mesh:8x8", alloc, method, exhaustive=True, max_failures=3)
    worst = ", ".join(f"F={f}: {w:g}" for f, w in zip(curve["failures"][1:], curve["worst"][1:]))
    print(f"{method:12s} {alloc}: worst collisions {worst}")
