"""The agents: one module per method, each a `make_*(config, spec) -> Agent` and the declarations of its agents (`ENTRIES`)."""
