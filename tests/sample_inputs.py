"""Valid inputs that the bad-input tests start from, cut or changed."""

from pathlib import Path

#: The example scenarios and data files.
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: A TopoBW report in the format of the Gemini paper's Figure 6: three transfer lines and a
#: summary line (MB/sec).
FIG6 = """\
c0-0c0s5n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): 5.0454 seconds = 5945.98 MB/sec
c0-0c0s3n0 Y+GS c0-0c0s3n1 (nid00006 to nid00007): 4.4262 seconds = 6777.84 MB/sec
c0-0c1s7n0 Z+CS c0-0c1s0n0 (nid00048 to nid00062): 10.5132 seconds = 2853.55 MB/sec
Bandwidth X min: 2974.68 on c0-0c0s3n3 max: 5947.06 on c0-0c1s5n1 avg: 3717.81
"""
