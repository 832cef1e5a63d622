"""Student starter code (generated from solutions/ by `coursegen stubs`)."""
