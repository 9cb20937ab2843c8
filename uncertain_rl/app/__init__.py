"""The app layer: the `uncertain-rl` command, the Deep Sea viewer and its Voila app; the library never imports it."""
