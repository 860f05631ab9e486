"""The error of a command line the user has to change: its own module, so every command can raise it."""


class UsageError(Exception):
    """A problem with the user's input: one line on stderr, exit 2."""
