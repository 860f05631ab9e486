"""Running a change's new and changed tests at head and on the base code (`bot check --verify-tests`)."""
