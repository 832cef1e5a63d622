"""Reference solutions (instructor only) and the catalogue of typical mistakes."""
