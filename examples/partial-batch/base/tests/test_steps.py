from trainer.steps import optimizer_steps


def test_full_batches():
    assert optimizer_steps(64, 8) == 8
