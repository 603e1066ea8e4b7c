"""Developer tooling (manifest checks, packaging). Never packaged, never imported by plugin code."""
