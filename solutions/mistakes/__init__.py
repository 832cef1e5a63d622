"""The catalogue of typical mistakes.

Each mistake is a complete, wrong definition of one exercise (a function or a class),
written the way a student would plausibly get it wrong, and decorated with the hint
that student should read:

    @mistake(target="apply_rope", id="rope-half-split",
             hint={"en": "...", "zh": "..."})
    def apply_rope(x, positions=None, base=10000.0):
        ...

The grader runs a mistake in the parent (it is trusted code) to recognise a student's
output; `coursegen verify` appends `Mistake.source` to the reference module's source to
build a "mistaken submission" and proves the checks catch it and show the hint.
"""
