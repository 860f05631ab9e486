"""The vocabulary every rule and every room of bot/ shares: change sets, findings, config, safe parsing."""
