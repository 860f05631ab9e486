"""The training family: profiles and Prime-RL configs, their step math, and the TRN rules."""
