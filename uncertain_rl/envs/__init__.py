"""The environments: a JAX Deep Sea that reproduces bsuite's, the binary tree, the chain, bsuite's Cartpole, reward noise, and the bridge to bsuite."""
