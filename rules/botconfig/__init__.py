"""The bot's own configuration: BOT001, a `.github/bot.yml` the bot cannot use."""
