"""The localization development set: real fixes and issues outside SWE-bench Verified on which
D_loc's re-ranker is measured and its shipped weights are fitted (`swevis devset`,
rules/devset.smk; docs/localization.md).

One module a step: `caselists` (the lists and the Verified check), `mining` (building them
from the clones), `gitio` (clones, trees, files at a commit), `prepare` (each case's inputs),
`runner` (D_loc along history), `pasthistory` (the stored past commits), `features` (the
candidates as feature matrices), `scoring` (hit rows), `variants` (what is compared),
`crossval` (held out by repository), `fitting` (the one fit and its provenance), `small` (the
42 hand-written cases), `split` (the 26 dev-split issues), `report` (the printed tables),
`settings`, `steps` and `cli` (`swevis devset STEP`).
"""
