"""`python -m bot`."""

from bot.cli.main import run

run()
