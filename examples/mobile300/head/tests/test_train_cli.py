from training.cli import max_steps_for_examples, max_steps_for_micro_steps


def test_target_examples_round_up():
    """Guards PR #812: sample exposure is at least the target, so steps round up."""
    assert max_steps_for_examples(300, 8) == 38


def test_target_micro_steps_match_custom_trainer():
    """Micro-step targets round down: 300 micro-batches at 8 per update give 37 updates."""
    assert max_steps_for_micro_steps(300, 8) == 37
