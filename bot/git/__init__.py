"""Change sets from a local git repository (read with git itself), and local fixes written back to it."""
