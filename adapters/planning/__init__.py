"""Planning in other processes: an optional component of the indexer (`BatchPlanner`),
loaded only when `PlanningSettings.processes` asks for planning processes."""
