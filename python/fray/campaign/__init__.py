"""Campaigns: a study described by one TOML file, swept, replicated, run on Dask, stored in
DuckDB, resumed after any interruption, exported and reported.

```python
from fray.campaign import load_scenario, run_campaign, write_report

scenario = load_scenario("examples/spares_fig11_torus12.toml")   # checked fully
result = run_campaign(scenario, "results.duckdb", workers=2)     # or scheduler="tcp://..."
write_report("results.duckdb", "report/")                        # PNG + report.html
```

See docs/campaigns.md for the file format and how to run on a cluster.
"""

from fray.campaign.export import export
from fray.campaign.report import write_report
from fray.campaign.runner import RunResult, run_campaign
from fray.campaign.scenario import Scenario, load_scenario, parse_scenario
from fray.campaign.schema import ScenarioError
from fray.campaign.tasks import make_plan

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "export",
    "load_scenario",
    "make_plan",
    "parse_scenario",
    "run_campaign",
    "write_report",
]
