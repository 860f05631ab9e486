"""The review: runs the enabled rules over a change set into one Report, and renders it in every format."""
