"""`python -m bot`."""

from bot.cli import run

run()
