"""Tests of the course in course/: every lab's solution passes, every starter fails for the
lab's own reason, and the graders catch the wrong solutions a learner plausibly writes."""
