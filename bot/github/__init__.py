"""The GitHub edge: events and comment commands in, the API client, the review published on the PR."""
