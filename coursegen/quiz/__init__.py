"""Quizzes: schema, generated questions, per-student variants, quality gate, exports, grading, site pages.

Data flows one way: content/quizzes/*.yaml -> load (schema) -> variants (concrete items)
-> exports / site / grade. `gate.verify_quizzes(root)` is the quality gate.
"""
