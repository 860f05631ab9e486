import pytest

from bot.local import SourceError, load_changeset
from bot.models import UnreadableFile


def test_changes_since_merge_base(make_repo):
    r = make_repo({"a.py": "a = 1\n"}, {"b.py": "b = 2\n"})
    # main moves on after the branch point: its new files are not part of the PR.
    r.git("checkout", "-q", "main")
    r.commit({"c.py": "c = 3\n"}, "main moves")
    cs = load_changeset(r.path, base="main", head="pr")
    assert [f.path for f in cs.files] == ["b.py"]
    assert cs.head_text("b.py") == "b = 2\n"
    assert cs.base_text("b.py") is None
    assert cs.base_text("a.py") == "a = 1\n"
    assert "c.py" not in cs.base_paths()
    assert cs.pr.base_ref is None and cs.pr.head_ref == "pr"


def test_default_base_is_main(make_repo):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    cs = load_changeset(r.path)
    assert [f.path for f in cs.files] == ["a.py"]


def test_default_base_prefers_remote_head(make_repo, tmp_path):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    r.git("branch", "-m", "main", "trunk")
    r.git("update-ref", "refs/remotes/origin/trunk", "trunk")
    r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    cs = load_changeset(r.path)
    assert cs.base_sha == r.git("rev-parse", "trunk").strip()
    assert [f.path for f in cs.files] == ["a.py"]


def test_symlink_is_read_as_blob_not_followed(make_repo, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    r = make_repo({"a.py": "1\n"}, {})
    (r.path / "link.txt").symlink_to(secret)
    r.commit(None, "link")
    cs = load_changeset(r.path, base="main", head="pr")
    # The blob is the link's target path, never the target's content; the review refuses to use it.
    assert cs.reader.read(cs.head_sha, "link.txt") == str(secret).encode()
    assert cs.file("link.txt").symlink
    with pytest.raises(UnreadableFile, match="symbolic link"):
        cs.head_text("link.txt")


def test_binary_text_is_unreadable(make_repo):
    r = make_repo({"a.py": "1\n"}, {"blob.py": b"\xff\xfe\x00"})
    cs = load_changeset(r.path, base="main", head="pr")
    with pytest.raises(UnreadableFile):
        cs.head_text("blob.py")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"base": "nope"}, "unknown ref: nope"),
        ({"head": "nope"}, "unknown ref: nope"),
    ],
)
def test_unknown_refs(make_repo, kwargs, message):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    with pytest.raises(SourceError, match=message):
        load_changeset(r.path, **kwargs)


def test_not_a_repository(tmp_path):
    with pytest.raises(SourceError, match="not a git repository"):
        load_changeset(tmp_path)


def test_missing_directory(tmp_path):
    with pytest.raises(SourceError, match="not a directory"):
        load_changeset(tmp_path / "missing")


def test_repository_without_commits(repo):
    with pytest.raises(SourceError, match="no commits"):
        load_changeset(repo.path)


def test_read_many_matches_read(make_repo):
    from bot.local import GitReader

    files = {"a.py": "a = 1\n", "b/c.txt": "two\nlines\n", "bin.dat": b"\x00\n\xff\n", "empty.py": ""}
    r = make_repo(files, {"a.py": "a = 2\n"})
    reader = GitReader(r.path)
    paths = [*files, "missing.py", "b"]
    many = reader.read_many("main", paths)
    assert many == {p: reader.read("main", p) for p in paths[:-1]} | {"b": None}
    assert many["bin.dat"] == b"\x00\n\xff\n" and many["missing.py"] is None


def test_read_many_skips_a_tree_before_other_paths(make_repo):
    # A path that is a folder at rev (a file replacing a folder) comes with the tree's bytes in the batch
    # output; the paths after it must still get their own contents.
    from bot.local import GitReader

    r = make_repo({"d/x.py": "x = 1\n", "f.py": "f = 1\n", "my file.py": "s = 1\n"}, {"f.py": "f = 2\n"})
    many = GitReader(r.path).read_many("main", ["d", "f.py", "gone file.py", "my file.py"])
    assert many == {"d": None, "f.py": b"f = 1\n", "gone file.py": None, "my file.py": b"s = 1\n"}
