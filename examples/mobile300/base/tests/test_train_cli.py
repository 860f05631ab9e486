from training.cli import max_steps_for_examples


def test_target_examples_round_up():
    """Guards PR #812: sample exposure is at least the target, so steps round up."""
    assert max_steps_for_examples(300, 8) == 38
