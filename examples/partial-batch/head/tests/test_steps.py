from trainer.steps import optimizer_steps


def test_full_batches():
    assert optimizer_steps(64, 8) == 8


def test_partial_batch_is_a_step():
    """300 examples at 8 per step: 37 full batches and one of 4, 38 steps. Guards PR #41."""
    assert optimizer_steps(300, 8) == 38


def test_exact_multiple_is_unchanged():
    """320 examples at 8 per step are 40 steps. Guards PR #41."""
    assert optimizer_steps(320, 8) == 40
