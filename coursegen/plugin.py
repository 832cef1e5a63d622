"""The plugin interface: how a course gives the engine its own code.

A course keeps its Python beside its content, in `content/plugins/*.py`. The engine imports
every module there (sorted by name) the first time it needs what the course registered, under a
package of the course's own (coursegen.plugin_loading): what a module registers is its course's,
and two courses' plugins never see each other's. A plugin module uses only these names:

    @answer_function(name, kind)   a generated question's answer ("number" or "shape"), from the
                                   reference solutions; returns Generated(answer, wrong, facts)
    @oracle(name)                  the independent closed form that must agree with answer `name`
                                   (plain Python: no torch, no solutions, no answer helpers)
    reference(exercise)            the reference implementation of an exercise (the calling
                                   plugin's course's solutions/)
    from_mistakes(exercise, fn)    distractors: fn run with each catalogued mistake (of that course)
    Generated, Wrong, InvalidParams
    @figure / @figure(check=fn)    a figure kind drawn at build time: keyword-only parameters with
                                   defaults (their types are checked), returns a matplotlib Figure;
                                   numpy() and pyplot() give the libraries, configured
    selfchecks(SelfCheckSpec(exercise, cases=(Case(label, code), ...), properties=(Property(label, code),)))
                                   an exercise's public notebook self-check: a Case's code returns a
                                   value (the reference's, embedded at build time, is what the
                                   student's must equal), a Property's code calls _expect* helpers
    @experiment(sources=..., versions=...)
                                   a run the build makes for a lesson's `experiments:` (keyword-only
                                   parameters with defaults), returns JSON-able results; cached by the
                                   hash of its module, params, `sources` files and `versions` packages
    @claim(experiment=name)        a lesson claim's check: function(results, **params) -> Evidence(holds,
                                   summary, seeds, rows=(Measure(label, values per seed),)); the build
                                   fails at the claim when it does not hold (coursegen/claims.py)

Nothing of a course is defined in the engine: a course without plugins has no generated
questions, and `coursegen new` writes a course with one module of each kind.
"""

from __future__ import annotations

from coursegen.claims import Evidence, Measure, claim, experiment
from coursegen.drawing import figure, numpy, pyplot
from coursegen.quiz.answers import (
    Generated,
    InvalidParams,
    Wrong,
    answer_function,
    from_mistakes,
    oracle,
    reference,
)
from coursegen.selfcheck_cases import Case, Property, SelfCheckSpec, selfchecks

__all__ = [
    "Case",
    "Evidence",
    "Measure",
    "claim",
    "experiment",
    "Property",
    "SelfCheckSpec",
    "selfchecks",
    "Generated",
    "InvalidParams",
    "Wrong",
    "answer_function",
    "figure",
    "from_mistakes",
    "numpy",
    "oracle",
    "pyplot",
    "reference",
]
