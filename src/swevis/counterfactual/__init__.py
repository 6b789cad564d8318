"""The counterfactual replay: what a recorded trajectory would have cost had its code windows
been rendered (or remembered). It reads trajectories of every common format (formats), finds
the code windows in their observations (swevis.agents.observation.output_windows, which the live agents
use too), re-costs each step under each condition (replay), bounds what rendering could save
(ceiling), and is `swevis replay` (cli). It runs no agent: it uses the agents' observation and
memory pipelines on recorded text.
"""
