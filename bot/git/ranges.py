"""What a local range holds before it is reviewed: a range with nothing in it is said so, not passed off
as a clean review ("ready, 0 of 0 files")."""

from __future__ import annotations

from rules.core.models import ChangeSet


class EmptyRange(Exception):
    """Base and head leave nothing to review; the message says why and what to type instead."""


def check_range(changeset: ChangeSet, base: str, head: str, base_tip: str) -> str | None:
    """Raise EmptyRange when head is base or lies behind it; return a note when the diff is empty.

    changeset.base_sha is the merge-base of base and head: it equals head exactly when head is base or
    one of its ancestors, where a pull request from head would have nothing to merge.
    """
    short = changeset.head_sha[:7]
    if changeset.head_sha == base_tip:
        raise EmptyRange(
            f"{base} and {head} are the same commit ({short}): there is nothing to review. Check out the "
            "branch to review or name it with --head BRANCH (and --base the branch it will merge into)."
        )
    if changeset.base_sha == changeset.head_sha:
        raise EmptyRange(
            f"{head} ({short}) is behind {base} ({base_tip[:7]}): everything in it is already in {base}, so "
            f"there is nothing to review. Reversed range? Try --base {head} --head {base}."
        )
    if not changeset.files and not changeset.files_unlisted:
        return f"no changes between {base} and {head} ({changeset.base_sha[:7]}..{changeset.head_sha[:7]})"
    return None
