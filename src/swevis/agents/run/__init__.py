"""Running one trajectory: the run spec, the chat stack, the step journal, traj.json, `swevis agent run`."""
