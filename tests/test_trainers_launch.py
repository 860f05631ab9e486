"""Launch scripts (verl, OpenRLHF) are read with shlex, within bounds."""

from rules.training.trainers import launch


def test_a_logical_line_past_the_cap_is_not_read():
    # shlex grows a word a character at a time: 400 KB of one word took 1.7 s; such a line is skipped.
    long_word = "python3 -m verl.trainer.main_ppo data.train_batch_size=" + "1" * (launch.MAX_LINE + 1)
    assert launch.parse(long_word + "\n") == launch.parse("")
    short = "python3 -m verl.trainer.main_ppo data.train_batch_size=256\n"
    assert launch.parse(short) != launch.parse("")
