"""The Playground's own guide: what each part of the first screen shows (the Details' "How to read" view)."""

from __future__ import annotations

from rebel.ui.text import md

INTRO = md(
    "REBEL boosts straight for the **minimum-risk class**: tell it what each mistake costs and it spends "
    "its weak learners on the boundaries that matter. Edit the costs or the clusters and watch the coloured "
    "regions move; press **▶ Play** to replay training round by round, and compare with the usual "
    "**two-step** method (learn posteriors with 0-1 costs, then pick the cheapest class)."
)
HOW_TO_READ = INTRO + md(
    "\n\n"
    "- **Costs** (right): entry (truth, prediction) is what that decision costs. The airport preset is the "
    "paper's Fig. 1: letting a weapon through costs 20, a false alarm 1.\n"
    "- **Regions** (left plot): the class REBEL picks at each place, i.e. its estimate of the "
    "minimum-risk class. Raise a cost and watch the costly class's region grow (paper Fig. 7).\n"
    "- **Round t** (the slider and ▶ Play under the plot): the model after its first t weak learners; the "
    "numbers above the plot and the cost strip's dots follow it. With costs, REBEL places the "
    "expensive boundaries first; *Size = weight* shows which points it is working on.\n"
    "- **Two-step** (toggles): the usual recipe, boosting with 0-1 costs, then posterior and cheapest class. "
    "*Disagreement* shades where the two decide differently; *Bayes boundaries* are the best possible ones.\n"
    "- **Numbers** (above the plot): the test cost per point of REBEL, the two-step method and the Bayes rule "
    "at round t, who is cheaper, the cost of ignoring the costs, and the regret (cost above the Bayes rule); "
    "the Details below show error rates, per-class numbers and the confusion matrix."
)
