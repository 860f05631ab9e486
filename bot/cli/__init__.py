"""The terminal: the `bot` command line, its subcommands and the step-math calculator behind `bot steps`."""
